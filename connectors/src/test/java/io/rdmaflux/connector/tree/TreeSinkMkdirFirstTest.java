package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tree sink makes a new directory with mkdir straight away, with no look at its path first
 * (before, each one cost a failing statx: 1,681 per copy of the benchmark's node_modules-like
 * tree), and still replaces a file or a link in the way of a directory without following the
 * link, and keeps a directory that is there. The sink runs under strace in a process of its own,
 * which records what it asks of the kernel.
 */
class TreeSinkMkdirFirstTest {

    private static final Path STRACE = Path.of("/usr/bin/strace");

    @TempDir
    Path dir;

    @Test
    void newDirectoriesAreMadeWithNoLookFirstAndWhatIsInTheWayIsStillReplaced() throws Exception {
        assumeTrue(Files.isExecutable(STRACE), "no strace: cannot see the sink's system calls");
        Path src = Files.createDirectories(dir.resolve("src"));
        for (String d : List.of("fresh", "fresh/deeper", "other", "kept", "was-a-file", "was-a-link")) {
            Files.createDirectories(src.resolve(d));
            Files.writeString(src.resolve(d).resolve("f.txt"), d);
        }
        Path dst = Files.createDirectories(dir.resolve("dst"));
        Files.createDirectories(dst.resolve("kept"));
        Files.writeString(dst.resolve("kept/mine.txt"), "left alone");
        Files.writeString(dst.resolve("was-a-file"), "in the way");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createSymbolicLink(dst.resolve("was-a-link"), outside);
        Path log = dir.resolve("strace.log");

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<Process> pipe = ProcessBuilder.startPipeline(List.of(
                new ProcessBuilder(java, "-cp", cp, TreeSourceMain.class.getName(), src.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT),
                new ProcessBuilder(STRACE.toString(), "-f", "-qq", "-o", log.toString(),
                        "-e", "trace=mkdir,mkdirat,stat,lstat,newfstatat,statx",
                        java, "-cp", cp, TreeSinkMain.class.getName(), dst.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)));
        Process sink = pipe.get(1);
        String failures = new String(sink.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        for (Process p : pipe) {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(failures).isEmpty();
        assertThat(sink.exitValue()).isZero();

        List<String> calls = Files.readAllLines(log);
        for (String d : List.of("fresh", "fresh/deeper", "other")) {
            String quoted = "\"" + dst.resolve(d) + "\"";
            int mkdir = firstIndex(calls, quoted, "mkdir");
            assertThat(mkdir).as("mkdir of %s", d).isNotNegative();
            assertThat(calls.subList(0, mkdir)).as("calls on %s before its mkdir", d)
                    .noneMatch(c -> c.contains(quoted));
            assertThat(Files.readString(dst.resolve(d).resolve("f.txt"))).isEqualTo(d);
        }
        assertThat(Files.readString(dst.resolve("kept/mine.txt"))).isEqualTo("left alone");
        assertThat(Files.readString(dst.resolve("kept/f.txt"))).isEqualTo("kept");
        for (String d : List.of("was-a-file", "was-a-link")) {
            assertThat(dst.resolve(d)).isDirectory();
            assertThat(Files.isSymbolicLink(dst.resolve(d))).isFalse();
            assertThat(Files.readString(dst.resolve(d).resolve("f.txt"))).isEqualTo(d);
        }
        try (var left = Files.list(outside)) {
            assertThat(left).as("the link's target, never followed").isEmpty();
        }
        assertThat(Files.isDirectory(outside, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    private static int firstIndex(List<String> calls, String quoted, String call) {
        for (int i = 0; i < calls.size(); i++) {
            String c = calls.get(i);
            if (c.contains(quoted) && (c.contains(call + "(") || c.contains(call + "at("))) {
                return i;
            }
        }
        return -1;
    }
}
