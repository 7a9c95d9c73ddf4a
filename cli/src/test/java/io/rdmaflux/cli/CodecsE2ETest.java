package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rdsend --zstd --encrypt and rdrecv as real processes over loopback, including tampering on the path. */
class CodecsE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** Compressible test data: repeated text with some variation. */
    private Path compressible(long size) throws IOException {
        Path p = dir.resolve("in.txt");
        StringBuilder b = new StringBuilder();
        long i = 0;
        try (OutputStream o = java.nio.file.Files.newOutputStream(p)) {
            long written = 0;
            while (written < size) {
                b.setLength(0);
                b.append("line ").append(i++).append(": the quick brown fox jumps over the lazy dog ").append(i * 7919 % 1000).append('\n');
                byte[] line = b.toString().getBytes();
                int n = (int) Math.min(line.length, size - written);
                o.write(line, 0, n);
                written += n;
            }
        }
        return p;
    }

    @Test
    void zstdAndEncryptionRoundTripWithRatioReported() throws IOException {
        Path in = compressible(40L << 20);
        Path out = dir.resolve("out.txt");
        Tool r = Tool.start(dir, "rdrecv", "-v", "--require-encryption", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "-v", "--zstd", "--encrypt", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        // The chain announces zstd's block: the default 1 MiB frame less both stages' record overhead.
        String chain = "codecs: zstd:1;level=1;block=" + ((1 << 20) - 9 - 29) + ",aes-256-gcm:1";
        assertThat(s.err()).contains("sending through " + chain).contains("AES-256-GCM:").contains("ratio 0.");
        assertThat(r.messages()).contains("receiving through " + chain).contains("AES-256-GCM:").contains("ratio 0.");
    }

    @Test
    void eachStageAloneAndIncompressibleData() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), (3L << 20) + 17, 4);
        for (String[] flags : new String[][] {{"--zstd=3"}, {"--encrypt"}, {"--zstd=-3", "--encrypt"}}) {
            Path out = dir.resolve("out.bin");
            Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
            int port = r.listeningPort();
            String[] args = new String[flags.length + 4];
            System.arraycopy(flags, 0, args, 0, flags.length);
            System.arraycopy(new String[] {"127.0.0.1", Integer.toString(port), "k", in.toString()}, 0, args, flags.length, 4);
            Tool s = Tool.start(dir, "rdsend", args);
            assertThat(s.exitCode(LIMIT)).as("rdsend %s: %s", String.join(" ", flags), s.err()).isZero();
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
            assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        }
    }

    @Test
    void aPlainStreamIsRefusedWhenEncryptionIsRequired() throws IOException {
        Path in = compressible(100_000);
        Path out = dir.resolve("out.txt");
        Tool r = Tool.start(dir, "rdrecv", "--require-encryption", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--zstd", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.DATA);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.DATA);
        assertThat(r.messages()).contains("did not encrypt").hasLineCount(1);
        assertThat(s.err()).contains("did not encrypt").hasLineCount(1);
        assertThat(out).doesNotExist();
    }

    @Test
    void aBadLevelIsAUsageError() {
        Tool s = Tool.start(dir, "rdsend", "--zstd=99", "127.0.0.1", "1", "k");
        assertThat(s.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(s.err()).contains("level 99");
    }

    /**
     * A bit flipped in a data frame: the stream's CRC32C and AES-GCM both catch it, and which
     * one first depends on timing; both tools report the same code whichever did: tampering
     * (65) when the stream is encrypted, a checksum mismatch (76) when it is not.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"--encrypt, 65", "--transport=tcp, 76"})
    void aBitFlippedOnTheWayFailsBothToolsWithTheSameCodeAndWritesNothing(String flag, int code) throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 8L << 20, 8);
        Path out = dir.resolve("out.bin");
        for (long offset : new long[] {1_500_000, 4_000_000}) {
            Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
            int port = r.listeningPort();
            try (FlippingProxy proxy = new FlippingProxy(port, offset)) {
                Tool s = Tool.start(dir, "rdsend", flag, "127.0.0.1", Integer.toString(proxy.port()), "k", in.toString());
                int receiver = r.exitCode(LIMIT);
                int sender = s.exitCode(LIMIT);
                assertThat(proxy.flipped()).as("the proxy flipped a bit").isTrue();
                assertThat(receiver).as("rdrecv: %s", r.err()).isEqualTo(code);
                assertThat(sender).as("rdsend: %s", s.err()).isEqualTo(code);
                assertThat(r.messages()).hasLineCount(1).doesNotContain("Exception");
                assertThat(s.err()).hasLineCount(1).doesNotContain("Exception");
            }
            assertThat(out).doesNotExist();
        }
    }

    /** A TCP proxy that forwards both ways and flips one bit of the sender's bytes at an offset. */
    private static final class FlippingProxy implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0);
        private final int target;
        private final long flipAt;
        private final AtomicLong forwarded = new AtomicLong();
        private volatile boolean flipped;

        FlippingProxy(int target, long flipAt) throws IOException {
            this.target = target;
            this.flipAt = flipAt;
            Thread t = new Thread(this::accept, "proxy");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        boolean flipped() {
            return flipped;
        }

        private void accept() {
            try {
                Socket client = listener.accept();
                Socket server = connectWithRetry();
                pump(client.getInputStream(), server.getOutputStream(), true);
                pump(server.getInputStream(), client.getOutputStream(), false);
            } catch (IOException e) {
                // The test ends the proxy by closing it.
            }
        }

        /** The receiver's JVM may still be starting: retry for a while, as rdsend does. */
        private Socket connectWithRetry() throws IOException {
            try {
                return await("the receiver accepting").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .ignoreExceptionsInstanceOf(IOException.class)
                        .until(() -> new Socket("127.0.0.1", target), java.util.Objects::nonNull);
            } catch (ConditionTimeoutException e) {
                throw new IOException("the receiver never accepted on port " + target, e);
            }
        }

        private void pump(InputStream from, OutputStream to, boolean tamper) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[65536];
                try {
                    int n;
                    while ((n = from.read(buf)) > 0) {
                        if (tamper && !flipped) {
                            long start = forwarded.get();
                            if (start + n > flipAt) {
                                buf[(int) (flipAt - start)] ^= 0x04;
                                flipped = true;
                            }
                            forwarded.addAndGet(n);
                        }
                        to.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    // Either side closed.
                } finally {
                    try {
                        to.close();
                    } catch (IOException ignored) {
                        // Already closed.
                    }
                }
            }, "proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
