package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool does not end before its sink has committed or cleaned up: a real JVM
 * ({@link SlowCommitExit}) whose sink is cancelled in the middle of a slow commit, as after a
 * failure that follows a verified END, ends through the tools' own exit and leaves no partial
 * file behind (docs/architecture.md, "Ending a stream").
 */
class SinkCleanUpExitTest {

    @TempDir
    Path dir;

    @TempDir
    Path logs;

    @Test
    void aToolWaitsForACommitUnderWayBeforeItEnds() throws Exception {
        Path err = logs.resolve("stderr");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx64m", SlowCommitExit.class.getName(), dir.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the process did not end in 60 s; its stderr: " + Files.readString(err));
        }
        assertThat(p.exitValue()).as(Files.readString(err)).isEqualTo(74);
        // The commit finished (the stream's END was verified): the output is whole, no part file is left.
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).isEqualTo(List.of("out"));
        }
        assertThat(Files.readString(err)).startsWith("rdflux: waiting up to ").contains(" s for the write to "
                + dir.resolve("out") + " to be committed or cleaned up\n");
    }
}
