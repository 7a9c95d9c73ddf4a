package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.randomFile;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standard input and output can only be tested in a process of their own (the test JVM's
 * stdout is the build tool's channel), so these run {@link StdioCopy} as a child process.
 */
class StdioTest {

    @TempDir
    Path dir;

    @Test
    void stdinToStdoutCopiesEveryByte() throws Exception {
        Path in = randomFile(dir, "in.bin", 5 * 1024 * 1024 + 77, 31);
        Path out = dir.resolve("out.bin");
        Process p = java().redirectInput(in.toFile()).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(stderr(p)).isZero();
        assertThat(sha256(out)).isEqualTo(sha256(in));
    }

    @Test
    void stdinFromAPipeToAFile() throws Exception {
        Path in = randomFile(dir, "in.bin", 3 * 1024 * 1024 + 5, 32);
        Path out = dir.resolve("piped.bin");
        List<ProcessBuilder> pipeline = List.of(
                new ProcessBuilder("cat", in.toString()),
                java("-", out.toString()));
        pipeline.get(0).redirectError(ProcessBuilder.Redirect.DISCARD);
        List<Process> ps = ProcessBuilder.startPipeline(pipeline);
        Process copy = ps.get(1);
        assertThat(copy.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(copy.exitValue()).as(stderr(copy)).isZero();
        assertThat(sha256(out)).isEqualTo(sha256(in));
        assertThat(TestSupport.list(dir)).containsExactlyInAnyOrder("in.bin", "piped.bin");
    }

    @Test
    void aReaderThatGoesAwayIsABrokenPipeNotAHang() throws Exception {
        List<ProcessBuilder> pipeline = List.of(
                java("/dev/zero"),
                new ProcessBuilder("head", "-c", "1000").redirectOutput(ProcessBuilder.Redirect.DISCARD));
        List<Process> ps = ProcessBuilder.startPipeline(pipeline);
        Process copy = ps.get(0);
        assertThat(copy.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String err = stderr(copy);
        assertThat(copy.exitValue()).as(err).isEqualTo(ErrorCode.SINK_FAILED.wire());
        assertThat(err.strip()).matches("stdiocopy: cannot write standard output: the reader closed the pipe "
                + "\\(broken pipe\\); \\d+ bytes were already written to standard output");
    }

    @Test
    void missingInputIsOneLineAndNonZero() throws Exception {
        Path missing = dir.resolve("missing.bin");
        Process p = java(missing.toString(), dir.resolve("x").toString()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(ErrorCode.SOURCE_FAILED.wire());
        assertThat(stderr(p).strip()).isEqualTo("stdiocopy: cannot read " + missing + ": no such file or directory");
    }

    private static ProcessBuilder java(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Xmx128m");
        cmd.add(StdioCopy.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(ProcessBuilder.Redirect.PIPE);
        return pb;
    }

    /** The child's stderr without SLF4J's start-up notice (no logging backend on the test classpath). */
    private static String stderr(Process p) throws IOException {
        String all = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return all.lines().filter(l -> !l.startsWith("SLF4J")).collect(java.util.stream.Collectors.joining("\n"));
    }
}
