package io.rdmaflux.connector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process that ends while a file sink is writing leaves no partial output: a real JVM
 * ({@link OpenWriteExit}) exits in the middle of a write, or right after cancelling it.
 */
class OpenWritesExitTest {

    @TempDir
    Path dir;

    @TempDir
    Path logs;

    @ParameterizedTest
    @ValueSource(strings = {"exit", "cancel-exit", "halt"})
    void aProcessEndingMidWriteLeavesNoPartialFile(String how) throws Exception {
        Path target = dir.resolve("out.bin");
        assertThat(run(how, target)).isEqualTo(3);
        assertThat(Files.list(dir)).as("what the write left in " + dir).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"exit", "halt"})
    void aProcessEndingMidAppendLeavesTheFileAsItWas(String how) throws Exception {
        Path target = dir.resolve("log.txt");
        Files.writeString(target, "kept\n");
        assertThat(run(how, target, "append")).isEqualTo(3);
        assertThat(Files.readString(target, StandardCharsets.UTF_8)).isEqualTo("kept\n");
        assertThat(Files.list(dir)).containsExactly(target);
    }

    private int run(Object... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx64m", OpenWriteExit.class.getName()));
        for (Object a : args) {
            command.add(a.toString());
        }
        Path err = logs.resolve("stderr");
        Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the writing process did not end in 60 s; its stderr: " + Files.readString(err));
        }
        if (p.exitValue() != 3) {
            System.err.print(Files.readString(err));
        }
        return p.exitValue();
    }
}
