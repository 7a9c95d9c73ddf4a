package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.cli.remote.ShellWords;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * rdsend and rdrecv as real processes over loopback TCP, through the launchers in bin/.
 * Memory bounds are asserted (peak RSS); no test asserts on timing.
 */
class SendReceiveE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;

    @TempDir
    Path dir;

    /** Piped into head, rdrecv ends as cat would (141, no message); the sender hears why. */
    @Test
    void aReceiverWhoseReaderStopsEarlyEndsQuietlyAndTheSenderIsTold() throws Exception {
        Tool job = Tool.group(dir, Tool.launcher("rdrecv") + " 0 k 2> recv.err | head -c 1000 > /dev/null;"
                + " echo ${PIPESTATUS[0]} > recv.status", Map.of());
        Path err = dir.resolve("recv.err");
        long deadline = System.nanoTime() + LIMIT.toNanos();
        java.util.regex.Matcher port = null;
        while (System.nanoTime() < deadline && (port == null || !port.find())) {
            Thread.sleep(50);
            port = java.util.regex.Pattern.compile("listening on [^:]+:(\\d+)")
                    .matcher(Files.exists(err) ? Files.readString(err) : "");
        }
        Path in = Files2.random(dir.resolve("in.bin"), 8L << 20, 41);
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", port.group(1), "k", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.IO);
        assertThat(s.err()).contains("receiver reported: cannot write standard output");
        assertThat(job.exitCode(LIMIT)).isZero();
        assertThat(Files.readString(dir.resolve("recv.status")).strip()).as(Files.readString(err)).isEqualTo("141");
        assertThat(Files.readString(err).lines().toList()).as("rdrecv's stderr").hasSize(1)
                .allMatch(l -> l.startsWith("rdrecv: listening on"));
    }

    private Tool recv(String... args) {
        return Tool.start(dir, "rdrecv", args);
    }

    private Tool send(String... args) {
        return Tool.start(dir, "rdsend", args);
    }

    @Test
    void largeFileToFileArrivesIntactWithBoundedMemory() {
        long size = 300L * 1024 * 1024 + 12345;
        Path in = Files2.random(dir.resolve("in.bin"), size, 1);
        Path out = dir.resolve("out.bin");
        Tool r = recv("-v", "--transport", "tcp", "0", "key1", out.toString());
        int port = r.listeningPort();
        Tool s = send("-v", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "key1", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(s.err()).contains("Bandwidth").contains("GB/s");
        assertThat(r.messages()).contains("Bandwidth");
        assertThat(s.peakRssMiB()).as("sender peak RSS (MiB)").isLessThan(300);
        assertThat(r.peakRssMiB()).as("receiver peak RSS (MiB)").isLessThan(300);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {0, 1, 1048575, 1048576, 1048577, 3 * 1048576 + 1})
    void stdinToStdoutKeepsEveryByte(long size) throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), size, size);
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", PIPE, ProcessBuilder.Redirect.to(out.toFile()), Map.of(),
                "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", ProcessBuilder.Redirect.from(in.toFile()), PIPE, Map.of(),
                "127.0.0.1", Integer.toString(port), "k");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files.size(out)).isEqualTo(size);
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(s.err()).isEmpty();
        assertThat(r.messages()).isEmpty();
    }

    @Test
    void keyFromFileAndEnvironment() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 100_000, 5);
        Path out = dir.resolve("out.bin");
        Path keyFile = Files.writeString(dir.resolve("key"), "from-a-file\n");
        Tool r = Tool.start(dir, "rdrecv", PIPE, PIPE, Map.of("RDFLUX_KEY", "from-a-file"),
                "0", out.toString());
        int port = r.listeningPort();
        Tool s = send("--key-file", keyFile.toString(), "127.0.0.1", Integer.toString(port), in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
    }

    @Test
    void slowConsumerKeepsBothProcessesBounded() throws Exception {
        long size = 96L * 1024 * 1024;
        Path in = Files2.random(dir.resolve("in.bin"), size, 9);
        Tool r = recv("0", "k");
        int port = r.listeningPort();
        Tool s = send("127.0.0.1", Integer.toString(port), "k", in.toString());
        // Read the receiver's stdout slowly: about 20 MB/s.
        String digest;
        try (InputStream out = r.process.getInputStream()) {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[64 * 1024];
            int n;
            long total = 0;
            while ((n = out.read(buf)) > 0) {
                d.update(buf, 0, n);
                total += n;
                if (total % (1024 * 1024) < n) {
                    Thread.sleep(50);
                }
            }
            digest = java.util.HexFormat.of().formatHex(d.digest());
        }
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(digest).isEqualTo(Files2.sha256(in));
        assertThat(s.peakRssMiB()).as("sender peak RSS (MiB)").isLessThan(300);
        assertThat(r.peakRssMiB()).as("receiver peak RSS (MiB)").isLessThan(300);
    }

    @Test
    void wrongKeyFailsTheSenderAndTheReceiverWaitsForTheRightOne() {
        Path in = Files2.random(dir.resolve("in.bin"), 10_000, 2);
        Path out = dir.resolve("out.bin");
        Tool r = recv("-v", "0", "right", out.toString());
        int port = r.listeningPort();
        Tool s = send("127.0.0.1", Integer.toString(port), "wrong", in.toString());
        assertThat(s.exitCode(LIMIT)).isEqualTo(ExitCode.NO_PERMISSION);
        assertThat(s.err()).contains("authentication failed").doesNotContain("Exception").hasLineCount(1);
        assertThat(out).doesNotExist();
        assertNoPartialFiles();
        // Only an authenticated sender counts: rdrecv logged the wrong one (-v) and goes on listening.
        Tool right = send("127.0.0.1", Integer.toString(port), "right", in.toString());
        assertThat(right.exitCode(LIMIT)).as("rdsend: %s", right.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(r.messages()).contains("authentication failed").doesNotContain("Exception");
    }

    @Test
    void noReceiverFailsAfterTheConnectTimeout() {
        int port = Tool.freePort();
        Tool s = Tool.start(dir, "rdsend", ProcessBuilder.Redirect.from(new java.io.File("/dev/null")), PIPE, Map.of(),
                "--connect-timeout", "1", "127.0.0.1", Integer.toString(port), "k");
        assertThat(s.exitCode(LIMIT)).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(s.err()).contains("cannot connect").contains("connection refused").hasLineCount(1);
    }

    @Test
    void receiverTimeoutEndsTheWaitForASender() {
        Tool r = recv("--timeout", "1", "0", "k", dir.resolve("out.bin").toString());
        assertThat(r.exitCode(LIMIT)).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(r.messages()).contains("no sender arrived within 1 s").hasLineCount(1);
        assertThat(dir.resolve("out.bin")).doesNotExist();
    }

    @Test
    void receiverTimeoutDoesNotCutAStreamThatTakesLonger() throws Exception {
        Path out = dir.resolve("out.bin");
        // The timeout bounds the wait for a sender; 5 s leaves a loaded machine time to start
        // the sender's JVM (2 s did not, in a CI run).
        Tool r = recv("--timeout", "5", "0", "k", out.toString());
        Tool s = send("127.0.0.1", Integer.toString(r.listeningPort()), "k");
        // The sender's stdin trickles for 7 s from its start, which is after the receiver's: the
        // stream outlives the receiver's timeout however long the sender took to start.
        byte[] sent = new byte[7 * 4096];
        new java.util.Random(11).nextBytes(sent);
        try (OutputStream in = s.process.getOutputStream()) {
            for (int i = 0; i < 7; i++) {
                in.write(sent, i * 4096, 4096);
                in.flush();
                Thread.sleep(1000);
            }
        }
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(sent);
    }

    @Test
    void senderKilledMidStreamFailsTheReceiverAndRemovesThePartialFile() throws Exception {
        Path out = dir.resolve("out.bin");
        Tool r = recv("0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = send("127.0.0.1", Integer.toString(port), "k");
        try (OutputStream feed = s.process.getOutputStream()) {
            Files2.random(feed, 8 << 20);
            feed.flush();
            awaitPartialFile();
            s.kill();
        } catch (IOException expectedOnceKilled) {
            // The pipe breaks when the sender dies.
        }
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(r.messages()).contains("sender").hasLineCount(1);
        assertThat(out).doesNotExist();
        assertNoPartialFiles();
    }

    @Test
    void receiverKilledMidStreamFailsTheSender() throws Exception {
        Path out = dir.resolve("out.bin");
        Tool r = recv("0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = send("127.0.0.1", Integer.toString(port), "k");
        try (OutputStream feed = s.process.getOutputStream()) {
            Files2.random(feed, 8 << 20);
            feed.flush();
            awaitPartialFile();
            r.kill();
            Files2.random(feed, 8 << 20);
        } catch (IOException expectedOnceFailed) {
            // rdsend stops reading its input once the stream failed.
        }
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(s.err()).contains("receiver").hasLineCount(1);
    }

    @Test
    void fullDiskFailsBothSidesAndRemovesThePartialFile() throws Exception {
        Path mount = Files.createDirectories(dir.resolve("small"));
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        assumeTrue(m.waitFor() == 0, "cannot mount a small tmpfs here (needs root); disk-full test skipped");
        try {
            Path in = Files2.random(dir.resolve("in.bin"), 10L << 20, 3);
            Path out = mount.resolve("out.bin");
            Tool r = recv("0", "k", out.toString());
            int port = r.listeningPort();
            Tool s = send("127.0.0.1", Integer.toString(port), "k", in.toString());
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.IO);
            assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.IO);
            assertThat(r.messages()).containsIgnoringCase("no space left on device").hasLineCount(1);
            assertThat(s.err()).containsIgnoringCase("no space left on device").hasLineCount(1);
            try (Stream<Path> left = Files.list(mount)) {
                assertThat(left).as("files left on the full disk").isEmpty();
            }
        } finally {
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
        }
    }

    @Test
    void usageErrorsGetOneLineAndExit64() {
        Tool badPort = recv("99999", "k");
        assertThat(badPort.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(badPort.err()).contains("bad port 99999");
        Tool missingArgs = send("127.0.0.1");
        assertThat(missingArgs.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        Tool badTransport = send("--transport", "carrier-pigeon", "h", "1", "k");
        assertThat(badTransport.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(badTransport.err()).contains("carrier-pigeon").doesNotContain("Exception");
    }

    @Test
    void portInUseFailsClearly() throws IOException {
        try (ServerSocket taken = new ServerSocket(0)) {
            Tool r = recv("--transport", "tcp", "--bind", "127.0.0.1", Integer.toString(taken.getLocalPort()), "k");
            // A socket bound to the wildcard or loopback blocks the same port.
            int code = r.exitCode(LIMIT);
            assertThat(code).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.UNAVAILABLE);
            assertThat(r.messages()).contains("cannot listen").containsIgnoringCase("address already in use").hasLineCount(1);
        }
    }

    @Test
    void missingInputAndUnwritableOutputFailBeforeConnecting() {
        Tool s = send("127.0.0.1", "1", "k", dir.resolve("no-such-file").toString());
        assertThat(s.exitCode(LIMIT)).isEqualTo(ExitCode.NO_INPUT);
        assertThat(s.err()).contains("no-such-file").hasLineCount(1);
        Tool r = recv(Integer.toString(Tool.freePort()), "k", dir.resolve("no-such-dir/out.bin").toString());
        assertThat(r.exitCode(LIMIT)).isEqualTo(ExitCode.CANT_CREATE);
        assertThat(r.messages()).contains("no-such-dir").hasLineCount(1);
    }

    @Test
    void helpAnswersQuestions() throws IOException {
        for (String tool : new String[] {"rdsend", "rdrecv"}) {
            Tool t = Tool.start(dir, tool, "--help");
            String out = new String(t.process.getInputStream().readAllBytes());
            assertThat(t.exitCode(LIMIT)).isZero();
            assertThat(out).contains("Usage:").contains("Examples:").contains("Exit codes (see docs/user-guide.md):").contains("--key-file");
            // Without a terminal the help is 80 columns wide: every line fits (text is written
            // as paragraphs picocli wraps, not as lines it would break again), and the synopsis
            // names the arguments once.
            assertThat(out).contains("Usage: " + tool + " [OPTIONS] ").doesNotContain("[FILE] HOST");
            assertThat(out.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
        }
        Tool d = Tool.start(dir, "rdflux", "doctor");
        String out = new String(d.process.getInputStream().readAllBytes());
        assertThat(d.exitCode(LIMIT)).isZero();
        assertThat(out).contains("tcp").contains("rdma").contains("memlock");
    }

    /**
     * The launchers find the jar from their own real location: a copy out of bin/ cannot, and
     * says how to fix that; a link, or a copy given RDFLUX_JAR, runs.
     */
    @Test
    void aLauncherCopiedOutOfBinSaysHowToFindTheJar() throws IOException {
        String bin = ShellWords.quote(Tool.HOME.resolve("bin").toString());
        String jar = ShellWords.quote(Tool.HOME.resolve("cli/target/rdma-flux.jar").toString());
        Tool job = Tool.group(dir, "mkdir copied linked && cp " + bin + "/rdsend " + bin + "/rdflux-launch copied/"
                + " && ln -s " + bin + "/rdsend linked/ || exit 99;"
                + " copied/rdsend --help > /dev/null 2> copied.err; echo $? > copied.status;"
                + " RDFLUX_JAR=" + jar + " copied/rdsend --help > /dev/null; echo $? > with-jar.status;"
                + " linked/rdsend --help > /dev/null; echo $? > linked.status", Map.of());
        assertThat(job.exitCode(LIMIT)).as(job.err()).isZero();
        assertThat(Files.readString(dir.resolve("copied.status")).strip()).isEqualTo(Integer.toString(ExitCode.SOFTWARE));
        assertThat(Files.readString(dir.resolve("copied.err"))).hasLineCount(1)
                .contains("rdsend: cannot find the jar at ").contains("link it instead or set RDFLUX_JAR");
        assertThat(Files.readString(dir.resolve("with-jar.status")).strip()).as(job.err()).isEqualTo("0");
        assertThat(Files.readString(dir.resolve("linked.status")).strip()).as(job.err()).isEqualTo("0");
    }

    @Test
    void aToolLeavesNoCopyOfItsNativeLibraryInTheTemporaryDirectory() throws IOException {
        // doctor loads the RDMA binding, which the tools copy out of the jar to a temporary directory.
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Tool d = Tool.start(dir, "rdflux", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.DISCARD,
                Map.of("RDFLUX_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp), "doctor");
        assertThat(d.exitCode(LIMIT)).as("doctor: %s", d.err()).isZero();
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).isEmpty();
        }
    }

    @Test
    void theCopyOfAToolKilledWithSigkillIsRemovedByTheNextTool() throws Exception {
        // Built without the rdma-core headers, the jar holds no native library, so no copy is made.
        // (RdmaNative.RESOURCE; the class is the rdma-flux module's own.)
        assumeTrue(SendReceiveE2ETest.class.getResource("/native/linux-x86_64/libdisni.so") != null,
                "built without libdisni.so (no rdma-core headers): the tools make no copy of it");
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Map<String, String> env = Map.of("RDFLUX_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
        // A receiver decides whether it can listen for RDMA too: it has loaded its copy once it listens.
        Tool r = Tool.start(dir, "rdrecv", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.DISCARD, env,
                "0", "k");
        r.listeningPort();
        r.process.destroyForcibly().waitFor();
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("the killed receiver's copy")
                    .singleElement().asString().startsWith("rdma-flux-native-");
        }
        Tool d = Tool.start(dir, "rdflux", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.DISCARD, env, "doctor");
        assertThat(d.exitCode(LIMIT)).as("doctor: %s", d.err()).isZero();
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).isEmpty();
        }
    }

    /** Waits until the receiver has started writing its temporary file. */
    private void awaitPartialFile() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.anyMatch(p -> p.getFileName().toString().contains("out.bin") && sizeOf(p) > 0)) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the receiver never started writing");
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }

    private void assertNoPartialFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("out.bin"));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
