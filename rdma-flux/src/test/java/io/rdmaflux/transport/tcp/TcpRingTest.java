package io.rdmaflux.transport.tcp;

import static io.rdmaflux.channel.TestData.awaitZero;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.InboundStream;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.SenderPool;
import io.rdmaflux.channel.SingleStreamServer;
import io.rdmaflux.channel.TestData;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The TCP transport's receive ring gives back every slot however a stream ends: completed,
 * failed by the sender while frames wait unread in the ring, and cancelled by the receiver
 * while frames are still arriving; a kept connection keeps its ring between streams, within the
 * receiver's memory budget. Real sockets on loopback.
 */
class TcpRingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int FRAME = 4096;
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(FRAME)
            .withReceiveSlots(4).withSendSlots(4);

    private final Recording transport = new Recording();

    @Test
    void aCompletedStreamLeavesNoSlotLeased() {
        byte[] data = TestData.bytes(1, 300_000);
        AtomicLong received = new AtomicLong();
        Mono<Void> outcome = run(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then(),
                s -> Flux.fromIterable(TestData.pieces(data, 2, 10_000)).map(Chunk::wrap));
        outcome.block(WAIT);
        assertThat(received).hasValue(data.length);
        awaitRingsEmpty("a completed stream");
    }

    @Test
    void aStreamTheSenderFailsGivesBackTheSlotsOfFramesNobodyRead() {
        IOException broken = new IOException("disk read error");
        // The handler never reads: the ring fills with all four frames the sender has credit for.
        Mono<Void> outcome = run(in -> Mono.never(),
                s -> Flux.range(0, 4).map(i -> Chunk.wrap(ByteBuffer.wrap(TestData.bytes(i, FRAME))))
                        .concatWith(Mono.error(broken)));
        assertCode(outcome, ErrorCode.SOURCE_FAILED);
        awaitRingsEmpty("the sender failed");
    }

    @Test
    void aStreamTheReceiverCancelsGivesBackTheSlotsOfFramesStillArriving() {
        Mono<Void> outcome = run(in -> in.receive().take(3).then(),
                s -> Flux.range(0, 1000).map(i -> Chunk.wrap(ByteBuffer.wrap(TestData.bytes(i, FRAME)))));
        // A handler that completes early stops the stream on purpose: a success on the receiver.
        outcome.block(WAIT);
        awaitRingsEmpty("the receiver stopped");
    }

    /**
     * An ended stream's ring lets go of its memory, on both sides: the pool keeps no buffer for
     * a connection that will carry nothing more (its socket may linger for seconds, keeping the
     * pool reachable, and a receiver of many streams would hold all their rings meanwhile).
     */
    @Test
    void anEndedStreamHoldsNoRingMemory() {
        byte[] data = TestData.bytes(2, 3 * FRAME);
        run(in -> in.receive().then(), s -> Flux.fromIterable(TestData.pieces(data, 3, FRAME)).map(Chunk::wrap))
                .block(WAIT);
        assertThat(transport.connections).as("connections made").hasSize(2);
        awaitZero(() -> (int) transport.connections.stream().mapToLong(TcpFrameConnection::ringBytes).sum(),
                "bytes of receive ring memory held after the stream ended");
    }

    /**
     * A kept connection keeps its ring while idle: streams in a row on it reuse the same buffers,
     * where allocating a ring per stream would cost a zeroed direct buffer that only a GC frees.
     */
    @Test
    void streamsInARowOnAKeptConnectionAllocateTheRingOnce() {
        SenderPool pool = SenderPool.create();
        ReceiverServer server = keepingReceiver(Long.MAX_VALUE, in -> in.receive().then());
        try {
            FluxSender sender = sender(server, pool);
            for (int i = 0; i < 10; i++) {
                sender.send(Mono.just(ByteBuffer.wrap(TestData.bytes(i, 16 * FRAME)))).block(WAIT);
            }
            assertThat(transport.connections).as("connections made (one kept)").hasSize(2);
            assertThat(transport.connections.stream().mapToInt(TcpFrameConnection::ringAllocations).sum())
                    .as("receive buffers allocated for 10 streams of 16 frames on one kept connection")
                    .isBetween(1, OPTIONS.receiveSlots());
        } finally {
            pool.dispose();
            server.disposeNow(WAIT);
        }
    }

    /**
     * An idle kept connection's ring counts in the receiver's budget, so a new connection that
     * does not fit has the receiver close the idle one (oldest first) and is served, not refused;
     * and the rings held never exceed the budget, even while a stream runs.
     */
    @Test
    void aStreamShortOfMemoryClosesTheIdleKeptConnectionAndIsServed() {
        long ring = (long) FRAME * OPTIONS.receiveSlots();
        AtomicLong mostHeld = new AtomicLong();
        // Neither side lets an idle connection go on its own within the test.
        SenderPool first = SenderPool.create(1, Duration.ofHours(1));
        SenderPool second = SenderPool.create(1, Duration.ofHours(1));
        ReceiverServer server = keepingReceiver(ring, in -> in.receive()
                .doOnNext(b -> mostHeld.accumulateAndGet(ringBytes(), Math::max)).then());
        try {
            sender(server, first).send(Mono.just(ByteBuffer.wrap(TestData.bytes(1, 8 * FRAME)))).block(WAIT);
            assertThat(first.idleConnections()).isEqualTo(1);
            // The budget holds one ring, which the first sender's idle connection keeps.
            sender(server, second).send(Mono.just(ByteBuffer.wrap(TestData.bytes(2, 8 * FRAME)))).block(WAIT);
            Awaitility.await("the receiver closed the idle connection for the new stream").atMost(WAIT)
                    .until(() -> first.idleConnections() == 0);
            // And back: the first sender's next stream takes the second's idle connection's place.
            sender(server, first).send(Mono.just(ByteBuffer.wrap(TestData.bytes(3, 8 * FRAME)))).block(WAIT);
            Awaitility.await("the receiver closed the other idle connection").atMost(WAIT)
                    .until(() -> second.idleConnections() == 0);
            assertThat(mostHeld.get()).as("receive ring bytes held during a stream").isPositive()
                    .isLessThanOrEqualTo(ring);
            assertThat(ringBytes()).as("receive ring bytes held now").isLessThanOrEqualTo(ring);
        } finally {
            first.dispose();
            second.dispose();
            server.disposeNow(WAIT);
        }
    }

    private long ringBytes() {
        return transport.connections.stream().mapToLong(TcpFrameConnection::ringBytes).sum();
    }

    /** A receiver of many streams that keeps connections for senders with a pool. */
    private ReceiverServer keepingReceiver(long budget, Function<InboundStream, Publisher<Void>> handler) {
        return FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport).options(OPTIONS)
                .memoryBudget(budget).keepAlive(Duration.ofHours(1)).handle(handler).bind().block(WAIT);
    }

    private FluxSender sender(ReceiverServer server, SenderPool pool) {
        return FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(transport).options(OPTIONS).pool(pool);
    }

    /** Runs one stream over loopback; the receiver's outcome. */
    private Mono<Void> run(Function<InboundStream, Publisher<Void>> handler,
                           Function<io.rdmaflux.channel.Session, Publisher<Chunk>> body) {
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport)
                .options(OPTIONS).handle(handler).bindOne().block(WAIT);
        Mono<Void> sent = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(transport).options(OPTIONS).send(StreamMetadata.empty(), body).cache();
        sent.subscribe(v -> { }, e -> { });
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        // Both ends must have finished before the ring is counted.
        return Mono.when(sent.onErrorResume(e -> Mono.empty())).then(outcome);
    }

    /** Waits until both ends' rings are back to zero; the two connections must have been seen. */
    private void awaitRingsEmpty(String when) {
        assertThat(transport.connections).as("connections made").hasSize(2);
        awaitZero(transport::slotsInUse, "TCP receive slots leased after " + when);
    }

    private static void assertCode(Mono<Void> outcome, ErrorCode code) {
        try {
            outcome.block(WAIT);
        } catch (RdmaFluxException e) {
            assertThat(e.code()).as("code of: %s", e.getMessage()).isEqualTo(code);
            return;
        }
        throw new AssertionError("the stream did not fail with " + code);
    }

    /** The TCP transport, keeping every connection it makes so that their rings can be counted. */
    private static final class Recording implements Transport {
        private final TcpTransport tcp = new TcpTransport();
        private final List<TcpFrameConnection> connections = new CopyOnWriteArrayList<>();

        int slotsInUse() {
            return connections.stream().mapToInt(TcpFrameConnection::slotsInUse).sum();
        }

        @Override
        public String name() {
            return tcp.name();
        }

        @Override
        public String unavailableReason() {
            return tcp.unavailableReason();
        }

        @Override
        public Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options) {
            return tcp.connect(address, options).doOnNext(c -> connections.add((TcpFrameConnection) c));
        }

        @Override
        public Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                            Consumer<FrameConnection> acceptor) {
            return tcp.listen(address, options, c -> {
                connections.add((TcpFrameConnection) c);
                acceptor.accept(c);
            });
        }
    }
}
