package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static io.rdmaflux.channel.Outcomes.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.hostile.RawPeer;
import io.rdmaflux.hostile.RawPeer.Frame;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Receivers over real TCP facing peers that do not follow the protocol: other programs, other
 * versions, wrong keys, silence, data before authentication, floods of connections, a second
 * sender. Each must cost the receiver little, change nothing for the real stream, and leave a
 * one-stream receiver listening for an authenticated sender.
 */
class HostilePeerTest {

    private static final String KEY = "the key";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withHandshakeTimeout(Duration.ofSeconds(2));

    /** A one-stream receiver on a free loopback port that records what its handler got. */
    private static final class OneStream implements AutoCloseable {
        final ByteArrayOutputStream received = new ByteArrayOutputStream();
        final AtomicInteger handlers = new AtomicInteger();
        final CompletableFuture<Void> started = new CompletableFuture<>();
        /** The handler completes only once this has, after its data. */
        final Sinks.Empty<Void> hold = Sinks.empty();
        final SingleStreamServer server;
        final Mono<Void> outcome;

        OneStream(FluxReceiver receiver, boolean holdHandler) {
            if (!holdHandler) {
                hold.tryEmitEmpty();
            }
            server = receiver.handle(in -> {
                handlers.incrementAndGet();
                started.complete(null);
                return in.receive().doOnNext(b -> {
                    byte[] copy = new byte[b.remaining()];
                    b.get(copy);
                    synchronized (received) {
                        received.write(copy, 0, copy.length);
                    }
                }).then(hold.asMono());
            }).bindOne().block(WAIT);
            outcome = server.outcome().cache();
            outcome.subscribe(v -> { }, e -> { });
        }

        OneStream(FluxReceiver receiver) {
            this(receiver, false);
        }

        OneStream() {
            this(receiver());
        }

        /** Waits until a sender has the stream (its METADATA arrived). */
        OneStream awaitStream() {
            try {
                started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                return this;
            } catch (Exception e) {
                throw new AssertionError("no stream started", e);
            }
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", server.address().getPort());
        }

        byte[] received() {
            synchronized (received) {
                return received.toByteArray();
            }
        }

        @Override
        public void close() {
            server.dispose();
        }
    }

    private static FluxReceiver receiver() {
        return FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(new TcpTransport()).options(OPTIONS);
    }

    private static FluxSender sender(InetSocketAddress to) {
        return FluxSender.create().host("127.0.0.1").port(to.getPort()).key(KEY).transport(new TcpTransport()).options(OPTIONS);
    }

    /** A sender whose data the test hands over piece by piece, so that its stream runs as long as needed. */
    private static final class PacedSender {
        final Sinks.Many<ByteBuffer> data = Sinks.many().unicast().onBackpressureBuffer();
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final Mono<Void> result;

        PacedSender(InetSocketAddress to) {
            result = sender(to).send(data.asFlux()).cache();
            result.subscribe(v -> { }, e -> { });
        }

        PacedSender emit(int seed, int size) {
            byte[] b = TestData.bytes(seed, size);
            sent.write(b, 0, b.length);
            data.emitNext(ByteBuffer.wrap(b), Sinks.EmitFailureHandler.busyLooping(WAIT));
            return this;
        }

        void complete() {
            data.emitComplete(Sinks.EmitFailureHandler.busyLooping(WAIT));
        }
    }



    /** The real stream, after whatever came before, arrives whole and is the receiver's outcome. */
    private static void aRealSenderIsServed(OneStream r) {
        byte[] data = TestData.bytes(42, 700_000);
        sender(r.address()).send(Flux.fromIterable(TestData.pieces(data, 1, 50_000))).block(WAIT);
        assertThat(failure(r.outcome)).as("the receiver's outcome").isNull();
        assertThat(r.received()).isEqualTo(data);
        assertThat(r.handlers.get()).as("streams handled").isEqualTo(1);
    }

    private static ByteBuffer hello() {
        return RawPeer.hello(Hello.Role.SENDER, ProtocolVersion.CURRENT);
    }

    private static ByteBuffer random(int n) {
        return ByteBuffer.wrap(TestData.bytes(n, n));
    }

    static Stream<Arguments> failedHandshakes() {
        return Stream.of(
                Arguments.of("another protocol's bytes",
                        (Consumer<RawPeer>) p -> p.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                        ErrorCode.VERSION),
                Arguments.of("a short HELLO of another version (the issue's printf)",
                        (Consumer<RawPeer>) p -> p.write(new byte[] {1, 0, 0, 0, 0, 0, 0, 6, 'R', 'D', 'F', 'X', 0,
                                (byte) (ProtocolVersion.CURRENT + 1)}),
                        ErrorCode.VERSION),
                Arguments.of("a whole HELLO of the previous version",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, RawPeer.hello(Hello.Role.SENDER, ProtocolVersion.CURRENT - 1)),
                        ErrorCode.VERSION),
                Arguments.of("a HELLO, then a random AUTH",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).frame(FrameType.AUTH, random(32)),
                        ErrorCode.AUTHENTICATION),
                Arguments.of("a HELLO, then silence past the handshake timeout",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()),
                        ErrorCode.TIMEOUT),
                Arguments.of("a HELLO, then a close",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).close(),
                        null),
                Arguments.of("a DATA frame of 1 MiB before HELLO",
                        (Consumer<RawPeer>) p -> p.header(FrameType.DATA.code(), 1 << 20).write(new byte[5000]),
                        ErrorCode.VERSION),
                Arguments.of("a DATA frame after HELLO, before AUTH",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).header(FrameType.DATA.code(), 1000).write(new byte[1000]),
                        ErrorCode.PROTOCOL),
                Arguments.of("METADATA before AUTH",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).frame(FrameType.METADATA,
                                StreamMetadata.empty().with(StreamMetadata.NAME, "x").encode()),
                        ErrorCode.PROTOCOL),
                Arguments.of("END before AUTH",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).frame(FrameType.END, ControlFrames.end(0, 0)),
                        ErrorCode.PROTOCOL),
                Arguments.of("a control frame of 60000 bytes before AUTH",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, hello()).header(FrameType.METADATA.code(), 60_000),
                        ErrorCode.PROTOCOL),
                Arguments.of("a receiver's HELLO",
                        (Consumer<RawPeer>) p -> p.frame(FrameType.HELLO, RawPeer.hello(Hello.Role.RECEIVER, ProtocolVersion.CURRENT)),
                        ErrorCode.PROTOCOL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failedHandshakes")
    void aPeerThatFailsTheHandshakeIsAnsweredAndForgottenAndTheRealSenderServed(String name, Consumer<RawPeer> script,
                                                                                ErrorCode answer) {
        try (OneStream r = new OneStream()) {
            // The peer is gone, and the receiver done with it, before the real sender comes.
            try (RawPeer peer = RawPeer.connect(r.address())) {
                script.accept(peer);
                if (answer != null) {
                    List<Frame> frames = peer.readUntilClosed();
                    assertThat(frames).as("frames from the receiver").isNotEmpty();
                    assertThat(frames.get(0).frameType()).isEqualTo(FrameType.HELLO);
                    Frame last = frames.get(frames.size() - 1);
                    assertThat(last.frameType()).as("last of %s", frames).isEqualTo(FrameType.ERROR);
                    assertThat(ControlFrames.decodeError(last.buffer()).code()).isEqualTo(answer);
                }
            }
            aRealSenderIsServed(r);
        }
    }

    @Test
    void aWrongKeyDuringARunningStreamChangesNothing() {
        try (OneStream r = new OneStream()) {
            PacedSender real = new PacedSender(r.address()).emit(1, 300_000);
            r.awaitStream();
            Throwable wrong = failure(FluxSender.create().host("127.0.0.1").port(r.address().getPort()).key("another key")
                    .transport(new TcpTransport()).options(OPTIONS).send(Mono.just(ByteBuffer.allocate(100))));
            assertThat(wrong).isInstanceOf(RdmaFluxException.class);
            try (RawPeer peer = RawPeer.connect(r.address())) {
                peer.frame(FrameType.HELLO, hello()).frame(FrameType.AUTH, random(32));
                assertThat(peer.readUntilClosed()).last().extracting(Frame::frameType).isEqualTo(FrameType.ERROR);
            }
            real.emit(2, 300_000).complete();
            assertThat(failure(real.result)).as("the real sender").isNull();
            assertThat(failure(r.outcome)).as("the receiver's outcome").isNull();
            assertThat(r.received()).isEqualTo(real.sent.toByteArray());
        }
    }

    @Test
    void aSecondAuthenticatedSenderIsRefusedAsBusyAndTheFirstStreamIsTheOutput() {
        try (OneStream r = new OneStream()) {
            PacedSender first = new PacedSender(r.address()).emit(1, 200_000);
            r.awaitStream();
            Throwable second = failure(sender(r.address()).send(Mono.just(ByteBuffer.wrap(TestData.bytes(9, 50_000)))));
            assertCode(second, ErrorCode.BUSY);
            assertThat(second).hasMessageContaining("receiver busy");
            first.emit(2, 200_000).complete();
            assertThat(failure(first.result)).isNull();
            assertThat(failure(r.outcome)).isNull();
            assertThat(r.received()).isEqualTo(first.sent.toByteArray());
            assertThat(r.handlers.get()).isEqualTo(1);
        }
    }

    @Test
    void sendersRacingThroughTheHandshakeGetOneStreamAndBusy() {
        try (OneStream r = new OneStream(receiver(), true)) {
            List<Mono<Void>> senders = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Mono<Void> m = sender(r.address()).send(Mono.just(ByteBuffer.wrap(TestData.bytes(i, 100_000)))).cache();
                m.subscribe(v -> { }, e -> { });
                senders.add(m);
            }
            // The stream's handler holds on until the three others have been refused.
            List<Throwable> refused = Flux.fromIterable(senders)
                    .flatMap(m -> m.then(Mono.<Throwable>empty()).onErrorResume(Mono::just))
                    .take(3).collectList().block(WAIT);
            refused.forEach(t -> assertCode(t, ErrorCode.BUSY));
            r.hold.tryEmitEmpty();
            assertThat(senders.stream().filter(m -> failure(m) == null).count()).as("senders that succeeded").isEqualTo(1);
            assertThat(failure(r.outcome)).isNull();
            assertThat(r.handlers.get()).isEqualTo(1);
            assertThat(r.received()).hasSize(100_000);
        }
    }

    @Test
    void aNewConnectionTakesThePlaceOfTheLongestWaitingOneSoIdleStrangersCannotKeepASenderOut() {
        try (OneStream r = new OneStream(receiver().maxUnauthenticated(3))) {
            List<RawPeer> idle = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RawPeer p = RawPeer.connect(r.address());
                assertThat(p.read().frameType()).as("an admitted connection gets the receiver's HELLO").isEqualTo(FrameType.HELLO);
                idle.add(p);
            }
            try (RawPeer fourth = RawPeer.connect(r.address())) {
                assertThat(fourth.read().frameType()).as("the fourth is admitted too").isEqualTo(FrameType.HELLO);
                List<Frame> frames = idle.get(0).readUntilClosed();
                assertThat(frames).as("what the longest waiting one got").hasSize(1);
                RdmaFluxException displaced = ControlFrames.decodeError(frames.get(0).buffer());
                assertThat(displaced.code()).isEqualTo(ErrorCode.BUSY);
                assertThat(displaced).hasMessageContaining("took this one's place");
                // Three strangers still hold every place; the real sender comes in all the same.
                aRealSenderIsServed(r);
            } finally {
                idle.forEach(RawPeer::close);
            }
        }
    }

    /** A reset reads as what it is, not as Netty's "recvAddress(..) failed with error(-104)". */
    @Test
    void aConnectionResetIsSaidInPlainWords() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> reset = CompletableFuture.runAsync(() -> {
                try (java.net.Socket s = server.accept()) {
                    s.getInputStream().read();   // the sender's HELLO is arriving
                    s.setSoLinger(true, 0);      // close with RST
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Throwable e = failure(sender(new InetSocketAddress("127.0.0.1", server.getLocalPort()))
                    .send(Mono.just(ByteBuffer.allocate(10))));
            reset.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(e).hasMessageContaining("connection failed: connection reset by peer")
                    .hasMessageNotContaining("(..)");
        }
    }

    @Test
    void floodsOfIdleConnectionsAndEarlyDataCostLittleAndChangeNothing() throws Exception {
        // A receiver that serves many streams, so that every connection gets a session and a
        // handshake rather than an immediate refusal.
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        ReceiverServer server = receiver().maxUnauthenticated(5000)
                .options(OPTIONS.withHandshakeTimeout(Duration.ofSeconds(60)))
                .handle(in -> in.receive().doOnNext(b -> {
                    byte[] copy = new byte[b.remaining()];
                    b.get(copy);
                    received.write(copy, 0, copy.length);
                }).then())
                .bind().block(WAIT);
        List<RawPeer> flood = new ArrayList<>();
        try {
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", server.address().getPort());
            PacedSender real = new PacedSender(at).emit(1, 3_000_000);
            long before = directMemory();
            for (int i = 0; i < 1000; i++) {
                flood.add(RawPeer.connect(at));
            }
            for (int i = 0; i < 200; i++) {
                RawPeer p = RawPeer.connect(at);
                p.header(FrameType.DATA.code(), 1 << 20).write(new byte[64 * 1024]);
                flood.add(p);
            }
            // An idle connection has cost what it costs once the receiver's HELLO arrived; one
            // that sent DATA before authenticating is answered with ERROR and closed.
            for (RawPeer p : flood.subList(0, 1000)) {
                assertThat(p.read().frameType()).isEqualTo(FrameType.HELLO);
            }
            for (RawPeer p : flood.subList(1000, 1200)) {
                assertThat(p.readUntilClosed()).extracting(Frame::frameType).containsExactly(FrameType.HELLO, FrameType.ERROR);
            }
            long grown = directMemory() - before;
            assertThat(grown).as("direct memory taken by 1,200 unauthenticated connections (bytes)")
                    .isLessThan(32L << 20);
            real.emit(2, 3_000_000).complete();
            assertThat(failure(real.result)).as("the real sender").isNull();
            assertThat(received.toByteArray()).isEqualTo(real.sent.toByteArray());
        } finally {
            flood.forEach(RawPeer::close);
            server.dispose();
        }
    }

    /** Direct memory in use: the JDK's direct buffers and Netty's own. */
    private static long directMemory() {
        long jdk = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
        return jdk + Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    }

    @Test
    void connectionsArrivingDuringTheStreamAreRefusedAsBusyBeforeAnyHandshake() {
        try (OneStream r = new OneStream()) {
            PacedSender real = new PacedSender(r.address()).emit(1, 100_000);
            r.awaitStream();
            assertCode(failure(sender(r.address()).send(Mono.just(ByteBuffer.allocate(1)))), ErrorCode.BUSY);
            try (RawPeer peer = RawPeer.connect(r.address())) {
                List<Frame> frames = peer.readUntilClosed();
                assertThat(frames).extracting(Frame::frameType).containsExactly(FrameType.ERROR);
                assertThat(ControlFrames.decodeError(frames.get(0).buffer()).code()).isEqualTo(ErrorCode.BUSY);
            }
            real.complete();
            assertThat(failure(real.result)).isNull();
            assertThat(failure(r.outcome)).isNull();
        }
    }

    @Test
    void aStreamThatAuthenticatedIsTheOutcomeEvenWhenItFails() {
        try (OneStream r = new OneStream()) {
            PacedSender real = new PacedSender(r.address()).emit(1, 100_000);
            real.data.emitError(new RdmaFluxException(ErrorCode.SOURCE_FAILED, "input went away"),
                    Sinks.EmitFailureHandler.busyLooping(WAIT));
            assertCode(failure(real.result), ErrorCode.SOURCE_FAILED);
            Throwable outcome = failure(r.outcome);
            assertCode(outcome, ErrorCode.SOURCE_FAILED);
            assertThat(outcome).hasMessageContaining("sender reported: input went away");
        }
    }
}
