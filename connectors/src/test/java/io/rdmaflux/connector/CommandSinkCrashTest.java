package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hard case: the JVM that feeds a sink command is killed with SIGKILL mid-stream. The
 * kernel then closes its end of the command's stdin; the command must still never see end of
 * input (its guard holds stdin open and kills the group first), and nothing may be left running.
 */
class CommandSinkCrashTest {

    @TempDir
    Path dir;

    @Test
    void aSinkCommandNeverSeesEndOfInputWhenItsJvmIsKilled() throws Exception {
        // Several rounds: without the guard, `done` appears every time; with only a
        // parent-death signal, about one time in eight.
        for (int round = 0; round < 4; round++) {
            Path d = Files.createDirectory(dir.resolve("round-" + round));
            String mark = UUID.randomUUID().toString();
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "-Xmx64m", CommandSinkFeed.class.getName(), d.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(d.resolve("feed.err").toFile());
            pb.environment().put(CommandTestSupport.MARK, mark);
            Process jvm = pb.start();
            try {
                Path part = d.resolve("part");
                await("data reaching the sink command", () -> Files.exists(part) && size(part) > 1024 * 1024);
                assertGuardHoldsTheCommandsInput(mark);
                jvm.destroyForcibly();
                assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).isTrue();
                await("the command and its guard gone", () -> CommandTestSupport.withMarker(mark).isEmpty());
                assertThat(d.resolve("done")).as("round " + round + ": the command saw end of input").doesNotExist();
            } finally {
                jvm.destroyForcibly();
            }
        }
    }

    /**
     * What makes the outcome certain rather than a race the guard usually wins (a guard that
     * only kills the group let `done` appear in 21 of 100 runs): the guard's fd 3 is the very
     * pipe the command reads as its stdin.
     */
    private static void assertGuardHoldsTheCommandsInput(String mark) throws IOException {
        Long guard = null;
        Long command = null;
        for (long pid : CommandTestSupport.withMarker(mark)) {
            String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
            if (cmdline.contains("rdflux-guard")) {
                guard = pid;
            } else if (cmdline.contains("cat > part")) {
                command = pid;
            }
        }
        assertThat(guard).as("the guard").isNotNull();
        assertThat(command).as("the command").isNotNull();
        Path held = Files.readSymbolicLink(Path.of("/proc", guard.toString(), "fd", "3"));
        assertThat(held.toString()).startsWith("pipe:")
                .isEqualTo(Files.readSymbolicLink(Path.of("/proc", command.toString(), "fd", "0")).toString());
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }
}
