package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.memory.MemoryTransport;
import io.rdmaflux.transport.memory.MemoryTransport.Verdict;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Frames dropped, altered or cut on the way: every fault ends both sides with a classified
 * error, never a short success; and the sender never has more frames in flight than credits.
 */
class FaultInjectionTest {

    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(4096).withReceiveSlots(4)
            .withSendSlots(4).withLiveness(Duration.ofMillis(200), Duration.ofSeconds(2));
    private static final Duration WAIT = Duration.ofSeconds(10);

    private record Outcome(Throwable sender, Throwable receiver) {
    }

    private static final AtomicInteger PORTS = new AtomicInteger(51000);

    /** Sends {@code frames} full frames and returns how each side's stream ended. */
    private static Outcome run(MemoryTransport transport, int frames) {
        int port = PORTS.incrementAndGet();
        Mono<Void> receiver = FluxReceiver.create().port(port).key("k").transport(transport).options(OPTIONS)
                .handle(in -> in.receive().then())
                .receiveOne()
                .cache();
        receiver.subscribe(v -> { }, e -> { });
        return new Outcome(outcome(FluxSender.create().port(port).key("k").transport(transport).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> Flux.range(0, frames)
                        .map(i -> Chunk.wrap(ByteBuffer.wrap(new byte[4096]))))), outcome(receiver));
    }

    private static Throwable outcome(Mono<Void> stream) {
        try {
            stream.block(WAIT);
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static void assertCode(Throwable t, ErrorCode code, String text) {
        assertThat(t).isInstanceOf(RdmaFluxException.class).hasMessageContaining(text);
        assertThat(((RdmaFluxException) t).code()).isEqualTo(code);
    }

    @Test
    void aFlippedBitFailsTheChecksumOnBothSides() {
        AtomicInteger data = new AtomicInteger();
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) -> {
            if (type == FrameType.DATA && data.incrementAndGet() == 7) {
                payload.put(100, (byte) (payload.get(100) ^ 0x10));
            }
            return Verdict.DELIVER;
        });
        Outcome o = run(t, 20);
        assertCode(o.receiver(), ErrorCode.CHECKSUM, "checksum mismatch");
        assertCode(o.sender(), ErrorCode.CHECKSUM, "receiver reported: checksum mismatch");
    }

    @Test
    void aDroppedFrameIsATruncatedStream() {
        AtomicInteger data = new AtomicInteger();
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) ->
                type == FrameType.DATA && data.incrementAndGet() == 3 ? Verdict.DROP : Verdict.DELIVER);
        Outcome o = run(t, 3);
        assertCode(o.receiver(), ErrorCode.TRUNCATED, "stream incomplete");
        assertThat(o.sender()).isInstanceOf(RdmaFluxException.class);
    }

    @Test
    void aConnectionCutMidStreamFailsBothSides() {
        AtomicInteger data = new AtomicInteger();
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) ->
                type == FrameType.DATA && data.incrementAndGet() == 5 ? Verdict.CUT_CONNECTION : Verdict.DELIVER);
        Outcome o = run(t, 50);
        assertCode(o.receiver(), ErrorCode.TRUNCATED, "sender closed the connection without a word (its process died");
        assertCode(o.sender(), ErrorCode.TRUNCATED, "closed the connection");
    }

    @Test
    void aSenderThatClosesTheMomentItHasItsEndAckLeavesBothSidesSuccessful() {
        // The handler completes after END, on a thread of its own; the sender closes as soon
        // as END_ACK lands, before that thread has moved on. The receiver had committed: its
        // outcome is success, not "sender closed the connection".
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) ->
                type == FrameType.END_ACK ? Verdict.DELIVER_AND_AWAIT_PEER_CLOSE : Verdict.DELIVER);
        int port = PORTS.incrementAndGet();
        Mono<Void> receiver = FluxReceiver.create().port(port).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().then(Mono.delay(Duration.ofMillis(20))).then())
                .receiveOne()
                .cache();
        receiver.subscribe(v -> { }, e -> { });
        Throwable sender = outcome(FluxSender.create().port(port).key("k").transport(t).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> Flux.range(0, 5).map(i -> Chunk.wrap(ByteBuffer.wrap(new byte[4096])))));
        assertThat(sender).as("sender").isNull();
        assertThat(outcome(receiver)).as("receiver").isNull();
    }

    @Test
    void aPeerOfAnotherVersionIsRefusedWithBothVersionsNamedAndTheReceiverKeepsListening() {
        AtomicBoolean first = new AtomicBoolean(true);
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) -> {
            if (type == FrameType.HELLO && fromSender && first.getAndSet(false)) {
                payload.putShort(4, (short) 9);
            }
            return Verdict.DELIVER;
        });
        int port = PORTS.incrementAndGet();
        Mono<Void> receiver = FluxReceiver.create().port(port).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().then())
                .receiveOne()
                .cache();
        receiver.subscribe(v -> { }, e -> { });
        FluxSender sender = FluxSender.create().port(port).key("k").transport(t).options(OPTIONS);
        assertCode(outcome(sender.send(Mono.just(ByteBuffer.allocate(10)))), ErrorCode.VERSION,
                "receiver reported: peer speaks protocol version 9");
        assertThat(outcome(sender.send(Mono.just(ByteBuffer.allocate(10))))).as("a sender of this version").isNull();
        assertThat(outcome(receiver)).isNull();
    }

    @Test
    void theSenderNeverHasMoreFramesInFlightThanCredits() {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger worst = new AtomicInteger();
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) -> {
            if (type == FrameType.DATA) {
                worst.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            } else if (type == FrameType.CREDIT) {
                inFlight.addAndGet(-payload.getInt(0));
            }
            return Verdict.DELIVER;
        });
        AtomicReference<Throwable> error = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receiveChunks()
                        .delayElements(Duration.ofMillis(1))
                        .doOnNext(Chunk::release).then().doOnError(error::set))
                .bind().block(WAIT);
        try {
            FluxSender.create().port(server.address().getPort()).key("k").transport(t).options(OPTIONS)
                    .send(Flux.range(0, 200).map(i -> ByteBuffer.wrap(new byte[1000 + i * 37 % 9000])))
                    .block(Duration.ofSeconds(30));
        } finally {
            server.dispose();
        }
        assertThat(error.get()).isNull();
        assertThat(worst.get()).as("most DATA frames ever in flight").isLessThanOrEqualTo(OPTIONS.receiveSlots());
        assertThat(t.slotsInUse()).isZero();
    }

    @Test
    void anAuthenticatedSenderBeyondItsCreditsBeforeTheHandlerReadsFailsTheStreamRatherThanLosingFrames() {
        // As on RDMA, whose shared ring keeps receives for control frames: the transport lets
        // through more DATA frames than the 5 credits, and the stream's queue (8) must refuse
        // the 9th although no subscriber is there yet to call it an overflow.
        MemoryTransport t = new MemoryTransport().ringRoom(4);
        ChannelOptions options = OPTIONS.withReceiveSlots(5);
        int frames = 9;
        AtomicReference<LiveStream> stream = new AtomicReference<>();
        CompletableFuture<Void> read = new CompletableFuture<>();
        AtomicLong handed = new AtomicLong();
        int port = PORTS.incrementAndGet();
        Mono<Void> receiver = FluxReceiver.create().port(port).key("k").transport(t).options(options)
                .observe(new StreamObserver() {
                    @Override
                    public void onStart(LiveStream s) {
                        stream.set(s);
                    }
                })
                .handle(in -> Mono.fromFuture(read).then(in.receive().doOnNext(b -> handed.addAndGet(b.remaining())).then()))
                .receiveOne()
                .cache();
        receiver.subscribe(v -> { }, e -> { });
        try (CreditBreaker peer = CreditBreaker.authenticate(t, port, "k", options)) {
            peer.metadata();
            for (int i = 0; i < frames; i++) {
                peer.data(TestData.bytes(i, 4096));
            }
            peer.end();
            // Every frame has reached the stream before its handler reads.
            Awaitility.await().atMost(WAIT).until(() -> stream.get() != null && stream.get().bytes() == frames * 4096L);
            read.complete(null);
            Throwable outcome = outcome(receiver);
            assertThat(outcome).as("the receiver's outcome, its handler handed %d bytes", handed.get()).isNotNull();
            assertCode(outcome, ErrorCode.PROTOCOL, "sender exceeded its credits");
            RdmaFluxException told = peer.awaitEnded();
            assertThat(told).as("the ERROR the sender was sent").isNotNull();
            assertThat(told.code()).isEqualTo(ErrorCode.PROTOCOL);
            assertThat(told).hasMessageContaining("sender exceeded its credits");
        }
    }

    @Test
    void aHandshakeThatNeverCompletesTimesOut() {
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) ->
                type == FrameType.AUTH ? Verdict.DROP : Verdict.DELIVER);
        ChannelOptions quick = OPTIONS.withHandshakeTimeout(Duration.ofMillis(600));
        ReceiverServer server = FluxReceiver.create().port(0).key("k").transport(t).options(quick)
                .handle(in -> in.receive().then()).bind().block(WAIT);
        try {
            assertThatThrownBy(() -> FluxSender.create().port(server.address().getPort()).key("k").transport(t)
                    .options(quick).send(Mono.just(ByteBuffer.allocate(1))).block(WAIT))
                    .isInstanceOf(RdmaFluxException.class).hasMessageContaining("handshake");
        } finally {
            server.dispose();
        }
    }
}
