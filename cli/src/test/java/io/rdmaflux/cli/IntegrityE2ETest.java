package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that change, outputs that are special, option ranges at their limits and arguments
 * that could be misread, with the real launchers. No timing is asserted; every wait is bounded.
 */
class IntegrityE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;

    @TempDir
    Path dir;

    @Test
    void anInputFileThatShrinksWhileItIsSentFailsBothSides() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 100_000_000, 41);
        Tool r = Tool.start(dir, "rdrecv", "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", Integer.toString(port), "k", in.toString());
        long received = 0;
        try (InputStream out = r.process.getInputStream()) {
            byte[] buf = new byte[1 << 16];
            // Credits hold the sender back while the first MiB is not read: it is mid-file.
            received += out.readNBytes(buf, 0, buf.length);
            try (FileChannel c = FileChannel.open(in, StandardOpenOption.WRITE)) {
                c.truncate(20_000_000);
            }
            int n;
            while ((n = out.read(buf)) > 0) {
                received += n;
            }
        }
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.NO_INPUT);
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.NO_INPUT);
        assertThat(s.err()).contains("the file shrank while it was sent (100000000 bytes announced, it ended after "
                + "20000000)").hasLineCount(1);
        assertThat(r.messages()).contains("sender reported: cannot read").contains("shrank").hasLineCount(1);
        assertThat(received).isLessThanOrEqualTo(20_000_000);
    }

    @Test
    void regularFilesUnderDevShmAreReceivedNewAndReplaced() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm here");
        Path out = shm.resolve("rdflux-e2e-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".bin");
        try {
            Path first = Files2.random(dir.resolve("first.bin"), 3_000_000, 42);
            transfer(first, out);
            assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(first));
            Path second = Files2.random(dir.resolve("second.bin"), 1_000_000, 43);
            transfer(second, out);
            assertThat(Files2.sha256(out)).as("replaced, not appended to").isEqualTo(Files2.sha256(second));
            try (Stream<Path> left = Files.list(shm)) {
                assertThat(left.map(p -> p.getFileName().toString()))
                        .noneMatch(n -> n.startsWith("." + out.getFileName() + ".rdflux-"));
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private void transfer(Path in, Path out, String... flags) {
        Tool r = Tool.start(dir, "rdrecv", concat(flags, "0", "k", out.toString()));
        Tool s = Tool.start(dir, "rdsend", concat(flags, "127.0.0.1", Integer.toString(r.listeningPort()), "k", in.toString()));
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void theLargestDocumentedFrameSizeCarriesA200MbStream() {
        Path in = Files2.random(dir.resolve("in.bin"), 200_000_000, 44);
        Path out = dir.resolve("out.bin");
        transfer(in, out, "--frame-size", "64M");
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
    }

    @Test
    void largeFramesSurviveAConsumerThatStopsReading() throws Exception {
        // 16 slots of 16 MiB fill while the reader pauses: every ring slot gets allocated.
        Path in = Files2.random(dir.resolve("in.bin"), 320L << 20, 45);
        Tool r = Tool.start(dir, "rdrecv", "--frame-size", "16M", "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--frame-size", "16M", "127.0.0.1", Integer.toString(port), "k", in.toString());
        String digest;
        try (InputStream out = r.process.getInputStream()) {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n = out.read(buf);
            d.update(buf, 0, Math.max(n, 0));
            Thread.sleep(3000);
            while ((n = out.read(buf)) > 0) {
                d.update(buf, 0, n);
            }
            digest = HexFormat.of().formatHex(d.digest());
        }
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(digest).isEqualTo(Files2.sha256(in));
    }

    @Test
    void aCombinationThatCannotHaveItsBuffersIsRefusedUpFront() {
        Tool s = Tool.start(dir, "rdsend", PIPE, PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-XX:MaxDirectMemorySize=256m"), "--frame-size", "64M", "h", "1", "k");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.USAGE);
        assertThat(s.err()).contains("--frame-size 64M with --slots 16 needs about")
                .contains("more than this JVM may use (256.00 MiB)").contains("MaxDirectMemorySize=");
    }

    @Test
    void portZeroIsAnnouncedOnStderrForScripts() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 1_000_000, 46);
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
        await("rdrecv listening").atMost(LIMIT).untilAsserted(() -> assertThat(r.err()).contains("listening on"));
        Matcher m = Pattern.compile("^rdrecv: listening on 0\\.0\\.0\\.0:(\\d+)$", Pattern.MULTILINE).matcher(r.err());
        assertThat(m.find()).as("rdrecv: %s", r.err()).isTrue();
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", m.group(1), "k", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
    }

    @Test
    void withTheKeyInTheEnvironmentABareWordAfterThePortIsNotTakenForAFile() throws IOException {
        Tool r = Tool.start(dir, "rdrecv", PIPE, PIPE, Map.of("RDFLUX_KEY", "secret"), "1", "secret");
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.USAGE);
        assertThat(r.messages()).contains("rdrecv: is 'secret' the key or the file to write? RDFLUX_KEY gives the key, "
                + "so FILE is expected there: leave 'secret' out to write standard output, or write ./secret to name a file");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).doesNotContain("secret");
        }
    }

    @Test
    void aKeyFileOthersCanReadGetsAWarning() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 10_000, 47);
        Path key = Files.writeString(dir.resolve("key"), "k\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        Tool r = Tool.start(dir, "rdrecv", "--key-file", key.toString(), "0", dir.resolve("out").toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--key-file", key.toString(), "127.0.0.1", Integer.toString(port), in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        String warning = "warning: key file " + key + " can be read by other users (rw-r--r--): restrict it with chmod 600 " + key;
        assertThat(s.err()).isEqualTo("rdsend: " + warning + "\n");
        assertThat(r.messages()).isEqualTo("rdrecv: " + warning + "\n");

        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Tool quiet = Tool.start(dir, "rdsend", "--key-file", key.toString(), "--connect-timeout", "0", "127.0.0.1",
                Integer.toString(Tool.freePort()), in.toString());
        assertThat(quiet.exitCode(LIMIT)).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(quiet.err()).doesNotContain("warning");
    }

    @Test
    void anUnwritableOutputIsRefusedBeforeListening() throws Exception {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        boolean mounted = run("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro.toString()) == 0;
        if (!mounted) {
            assumeTrue(!"root".equals(System.getProperty("user.name")), "root, but cannot mount a read-only tmpfs here");
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        try {
            Tool r = Tool.start(dir, "rdrecv", Integer.toString(Tool.freePort()), "k", ro.resolve("out.bin").toString());
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.CANT_CREATE);
            assertThat(r.messages()).contains("cannot write " + ro.resolve("out.bin"))
                    .contains(mounted ? "read-only file system" : "permission denied").hasLineCount(1);
        } finally {
            if (mounted) {
                run("umount", ro.toString());
            } else {
                Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }

    @Test
    void anOutputThatCannotBeCreatedOnceTheStreamArrivedIs74OnBothSides() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 1_000_000, 49);
        Path gone = Files.createDirectory(dir.resolve("gone"));
        Tool r = Tool.start(dir, "rdrecv", "0", "k", gone.resolve("out.bin").toString());
        int port = r.listeningPort();
        Files.delete(gone);
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.IO);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.IO);
        assertThat(s.err()).contains("receiver reported: cannot write " + gone.resolve("out.bin")
                + ": no such file or directory").hasLineCount(1);
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
