package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.hostile.FrameRelay;
import io.rdmaflux.hostile.RawPeer;
import io.rdmaflux.hostile.RawPeer.Frame;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rdrecv and rdsend as real processes facing hostile or foreign peers over loopback TCP: junk,
 * other versions, wrong keys, floods of connections, a second sender, and a man in the middle
 * ({@link FrameRelay}) that forges, strips and alters frames. Each case ends with the real
 * transfer intact, or both tools failing with the documented exit code and no file committed.
 */
class HostilePeerE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;

    @TempDir
    Path dir;

    private static InetSocketAddress at(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    private static ErrorCode lastError(List<Frame> frames) {
        assertThat(frames).as("frames from rdrecv").isNotEmpty();
        Frame last = frames.get(frames.size() - 1);
        assertThat(last.frameType()).as("last of %s", frames).isEqualTo(FrameType.ERROR);
        return ControlFrames.decodeError(last.buffer()).code();
    }

    /** No output file, and no partial file beside it. */
    private void assertNothingCommitted(Path out) throws IOException {
        assertThat(out).doesNotExist();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".part"));
        }
    }

    @Test
    void peersThatFailTheHandshakeAreForgottenAndTheRealSenderServed() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 3_000_000, 1);
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "-v", "--transport", "tcp", "0", "key1", out.toString());
        int port = r.listeningPort();
        try (RawPeer junk = RawPeer.connect(at(port))) {
            junk.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(lastError(junk.readUntilClosed())).isEqualTo(ErrorCode.VERSION);
        }
        try (RawPeer old = RawPeer.connect(at(port))) {
            // The reproduction: printf '\001\000\000\000\000\000\000\006RDFX\000\002' | nc -q1
            old.write(new byte[] {1, 0, 0, 0, 0, 0, 0, 6, 'R', 'D', 'F', 'X', 0, 2});
            if (ProtocolVersion.CURRENT == 2) {
                assertThat(lastError(old.readUntilClosed())).isIn(ErrorCode.VERSION, ErrorCode.PROTOCOL);
            }
        }
        try (RawPeer previous = RawPeer.connect(at(port))) {
            previous.frame(FrameType.HELLO, RawPeer.hello(Hello.Role.SENDER, 1));
            assertThat(lastError(previous.readUntilClosed())).isEqualTo(ErrorCode.VERSION);
        }
        try (RawPeer guesser = RawPeer.connect(at(port))) {
            byte[] proof = new byte[32];
            new SplittableRandom(3).nextBytes(proof);
            guesser.frame(FrameType.HELLO, RawPeer.hello(Hello.Role.SENDER, ProtocolVersion.CURRENT))
                    .frame(FrameType.AUTH, ByteBuffer.wrap(proof));
            assertThat(lastError(guesser.readUntilClosed())).isEqualTo(ErrorCode.AUTHENTICATION);
        }
        Tool wrongKey = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "key2", in.toString());
        assertThat(wrongKey.exitCode(LIMIT)).as("rdsend with a wrong key: %s", wrongKey.err()).isEqualTo(77);
        assertThat(r.process.isAlive()).as("rdrecv still listening; stderr: %s", r.err()).isTrue();

        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "key1", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(r.messages()).as("rdrecv -v names the connections it ignored").contains("ignored a connection")
                .contains("authentication failed").contains("not an rdma-flux");
    }

    /** A sender fed through its stdin by the test, so that its stream lasts as long as needed. */
    private final class PacedSend {
        final Tool tool;
        final OutputStream stdin;
        final Path sent = dir.resolve("sent-" + System.nanoTime() + ".bin");
        final SplittableRandom random = new SplittableRandom(11);

        PacedSend(int port, String... extra) {
            List<String> args = new ArrayList<>(List.of("--transport", "tcp"));
            args.addAll(Arrays.asList(extra));
            args.addAll(List.of("127.0.0.1", Integer.toString(port), "key1"));
            tool = Tool.start(dir, "rdsend", PIPE, PIPE, Map.of(), args.toArray(String[]::new));
            stdin = tool.process.getOutputStream();
        }

        PacedSend write(int bytes) {
            byte[] b = new byte[bytes];
            random.nextBytes(b);
            try {
                stdin.write(b);
                stdin.flush();
                Files.write(sent, b, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        void end() {
            try {
                stdin.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Whether rdrecv has written something: the stream is then the receiver's. */
    private static boolean wroteSomething(Path out) {
        try {
            return Files.size(out) > 0;
        } catch (IOException notThereYet) {
            return false;
        }
    }

    @Test
    void aSecondSenderIsRefusedAsBusyAndTheOutputIsExactlyTheFirstStream() throws IOException {
        Path out = dir.resolve("out.bin");
        Path other = Files2.random(dir.resolve("other.bin"), 3_000_000, 2);
        Tool r = Tool.start(dir, "rdrecv", PIPE, ProcessBuilder.Redirect.to(out.toFile()), Map.of(),
                "--transport", "tcp", "0", "key1");
        int port = r.listeningPort();
        PacedSend first = new PacedSend(port).write(2_000_000);
        await("rdrecv writing").atMost(LIMIT).until(() -> wroteSomething(out));
        Tool second = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "key1",
                other.toString());
        assertThat(second.exitCode(LIMIT)).as("the second rdsend: %s", second.err()).isEqualTo(79);
        assertThat(second.err()).contains("receiver busy");
        first.write(2_000_000).end();
        assertThat(first.tool.exitCode(LIMIT)).as("the first rdsend: %s", first.tool.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(first.sent));
    }

    @Test
    void floodsOfIdleConnectionsAndEarlyDataChangeNothingAndCostLittle() throws IOException {
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", PIPE, ProcessBuilder.Redirect.to(out.toFile()), Map.of(),
                "--transport", "tcp", "0", "key1");
        int port = r.listeningPort();
        List<RawPeer> flood = new ArrayList<>();
        try {
            // Before any sender: the receiver holds a few of these in their handshake and
            // refuses the rest at once.
            flood(port, flood);
            assertThat(r.process.isAlive()).as("rdrecv after the first flood; stderr: %s", r.err()).isTrue();
            flood.forEach(RawPeer::close);
            flood.clear();
            // A sender finds room once the receiver has noticed those connections are gone.
            await("rdrecv admitting a connection").atMost(LIMIT).until(() -> admits(port));
            PacedSend real = new PacedSend(port).write(4_000_000);
            await("rdrecv writing").atMost(LIMIT).until(() -> wroteSomething(out));
            // During the stream: every new connection is refused as busy.
            flood(port, flood);
            real.write(4_000_000).end();
            assertThat(real.tool.exitCode(LIMIT)).as("rdsend: %s", real.tool.err()).isZero();
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
            assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(real.sent));
            System.out.println("rdrecv's peak RSS through two floods of 3,300 connections: " + r.peakRssMiB() + " MiB");
            assertThat(r.peakRssMiB()).as("rdrecv's peak RSS (MiB)").isLessThan(300);
        } finally {
            flood.forEach(RawPeer::close);
        }
    }

    /** 3,100 idle connections and 200 that announce 1 MiB of DATA before any HELLO. */
    private static void flood(int port, List<RawPeer> into) {
        for (int i = 0; i < 3100; i++) {
            into.add(RawPeer.connect(at(port)));
        }
        for (int i = 0; i < 200; i++) {
            RawPeer p = RawPeer.connect(at(port));
            p.header(FrameType.DATA.code(), 1 << 20).write(new byte[64 * 1024]);
            into.add(p);
        }
        // Each one hears from rdrecv (its HELLO, or ERROR(BUSY)) once rdrecv has taken it on.
        for (RawPeer p : into) {
            assertThat(p.read()).as("rdrecv's first frame").isNotNull();
        }
    }

    /** Whether a new connection is admitted (gets rdrecv's HELLO rather than BUSY). */
    private static boolean admits(int port) {
        try (RawPeer probe = RawPeer.connect(at(port))) {
            return probe.read().frameType() == FrameType.HELLO;
        }
    }

    private record Ends(int sender, int receiver, String senderErr, String receiverErr) {
    }

    /** rdsend FILE through a relay to rdrecv OUT; both exit codes. */
    private Ends relayed(FrameRelay.Rule rule, Path in, Path out, String... senderFlags) {
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp", "0", "key1", out.toString());
        int port = r.listeningPort();
        try (FrameRelay relay = FrameRelay.start(at(port), rule)) {
            List<String> args = new ArrayList<>(List.of("--transport", "tcp"));
            args.addAll(Arrays.asList(senderFlags));
            args.addAll(List.of("127.0.0.1", Integer.toString(relay.port()), "key1", in.toString()));
            Tool s = Tool.start(dir, "rdsend", args.toArray(String[]::new));
            int sc = s.exitCode(LIMIT);
            int rc = r.exitCode(LIMIT);
            assertThat(relay.failures()).isEmpty();
            return new Ends(sc, rc, s.err(), r.messages());
        }
    }

    @Test
    void aRelayThatDropsEndAndForgesEndAckGivesNobodySuccess() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 2_000_000, 3);
        Path out = dir.resolve("out.bin");
        Ends e = relayed(FrameRelay.FORGE_END_ACK, in, out);
        assertThat(e.sender()).as("rdsend: %s", e.senderErr()).isEqualTo(70);
        assertThat(e.receiver()).as("rdrecv: %s", e.receiverErr()).isIn(70, 75);
        assertNothingCommitted(out);
    }

    @Test
    void aRelayThatStripsTheCodecChainGetsNoCiphertextWritten() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 2_000_000, 4);
        Path out = dir.resolve("out.bin");
        Ends e = relayed(FrameRelay.STRIP_CODECS, in, out, "--zstd", "--encrypt");
        assertThat(e.sender()).as("rdsend: %s", e.senderErr()).isEqualTo(70);
        assertThat(e.receiver()).as("rdrecv: %s", e.receiverErr()).isEqualTo(70);
        assertNothingCommitted(out);
    }

    @Test
    void aRelayThatFlipsADataBitFailsBothSidesWithChecksum() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 3_000_000, 5);
        Path out = dir.resolve("out.bin");
        Ends e = relayed(FrameRelay.flippingDataBit(2, 1000), in, out);
        assertThat(e.sender()).as("rdsend: %s", e.senderErr()).isEqualTo(76);
        assertThat(e.receiver()).as("rdrecv: %s", e.receiverErr()).isEqualTo(76);
        assertNothingCommitted(out);
    }

    @Test
    void aRelayThatSwallowsTheEndAckLeavesAVerifiedFileAndTheSenderCutShort() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 2_000_000, 6);
        Path out = dir.resolve("out.bin");
        Ends e = relayed(FrameRelay.dropping(FrameType.END_ACK), in, out);
        assertThat(e.receiver()).as("rdrecv: %s", e.receiverErr()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(e.sender()).as("rdsend: %s", e.senderErr()).isEqualTo(75);
    }

    /** A server that is not rdma-flux, or that plays one badly, for rdsend to reach. */
    private static int fakeReceiver(java.util.function.Consumer<Socket> script) throws IOException {
        ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (server; Socket s = server.accept()) {
                script.accept(s);
            } catch (IOException ignored) {
                // the test sees the result through rdsend
            }
        }, "fake-receiver");
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    @Test
    void anSshServerAnsweringRdsendIsAForeignPeer() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 1000, 7);
        int port = fakeReceiver(s -> {
            try {
                s.getOutputStream().write("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getInputStream().readNBytes(1024);
            } catch (IOException ignored) {
                // closed
            }
        });
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(70);
        assertThat(s.err()).contains("not an rdma-flux");
    }

    @Test
    void anUnauthenticatedErrorCannotChooseTheExitCodeOrDriveTheTerminal() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 1000, 8);
        int port = fakeReceiver(s -> {
            RawPeer p = RawPeer.of(s);
            p.frame(FrameType.HELLO, RawPeer.hello(Hello.Role.RECEIVER, ProtocolVersion.CURRENT));
            p.frame(FrameType.ERROR, ControlFrames.error(ErrorCode.CHECKSUM,
                    "checksum mismatch\u001b]0;pwned\u0007\u001b[2J\nrdsend: all good"));
            p.readUntilClosed();
        });
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(70);
        assertThat(s.err()).doesNotContain("\u001b").doesNotContain("\u0007");
        assertThat(s.err().strip().lines().count()).as("lines in %s", s.err()).isEqualTo(1);
    }
}
