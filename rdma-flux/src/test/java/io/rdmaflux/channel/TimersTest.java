package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.TransportServer;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The sessions' timers on virtual time: each side has its own clock, so a test can freeze one
 * side (a peer that falls silent) while it moves the other to the exact instant a timer must
 * fire, and to the instant before. Frames still travel over the in-memory transport's threads.
 */
class TimersTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    private static final Duration IDLE = Duration.ofSeconds(5);
    private static final Duration HANDSHAKE = Duration.ofSeconds(3);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration JUST_BEFORE = Duration.ofMillis(1);
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(4096)
            .withReceiveSlots(4).withSendSlots(4).withHandshakeTimeout(HANDSHAKE).withLiveness(HEARTBEAT, IDLE);

    private final VirtualTimeScheduler receiverTime = VirtualTimeScheduler.create();
    private final VirtualTimeScheduler senderTime = VirtualTimeScheduler.create();
    private final MemoryTransport transport = new MemoryTransport();
    private final AtomicInteger pingsFromSender = new AtomicInteger();
    private final CompletableFuture<ReceiverSession> receiver = new CompletableFuture<>();
    private final CompletableFuture<InboundStream> inbound = new CompletableFuture<>();
    private final TransportServer server;

    TimersTest() {
        transport.tamper((fromSender, type, payload) -> {
            if (fromSender && type == FrameType.PING) {
                pingsFromSender.incrementAndGet();
            }
            return MemoryTransport.Verdict.DELIVER;
        });
        server = transport.listen(new InetSocketAddress(0), OPTIONS.transportOptions(), c -> receiver.complete(
                new ReceiverSession(c, KEY, OPTIONS, in -> {
                    inbound.complete(in);
                    return Mono.never();
                }, new Admission(4, true), Timers.on(receiverTime)).start()))
                .block(WAIT);
    }

    @AfterEach
    void tearDown() {
        server.dispose();
        receiverTime.dispose();
        senderTime.dispose();
    }

    @Test
    void aSilentSenderIsFailedAtTheIdleTimeoutAndNotBefore() throws Exception {
        Mono<Void> sent = startSilentSender();
        ReceiverSession session = receiver.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        inbound.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        // The sender's clock stands still: it sends no PING, and its source sends no data.
        receiverTime.advanceTimeBy(IDLE.minus(JUST_BEFORE));
        assertThat(session.isFinished()).as("failed before the idle timeout").isFalse();

        receiverTime.advanceTimeBy(JUST_BEFORE);
        assertThat(session.isFinished()).as("failed at the idle timeout").isTrue();
        StepVerifier.create(session.result())
                .expectErrorSatisfies(e -> {
                    assertCode(e, ErrorCode.TIMEOUT);
                    assertThat(e).hasMessageContaining("no word from the sender for 5 s");
                })
                .verify(WAIT);
        // The sender is told why, although its own clock never moved.
        StepVerifier.create(sent).expectErrorSatisfies(e -> assertCode(e, ErrorCode.TIMEOUT)).verify(WAIT);
    }

    @Test
    void aSenderPingsOncePerHeartbeatWhileItHasNothingToSend() throws Exception {
        Mono<Void> sent = startSilentSender();
        inbound.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        senderTime.advanceTimeBy(HEARTBEAT.minus(JUST_BEFORE));
        assertThat(pingsFromSender).as("PINGs before the first heartbeat").hasValue(0);
        senderTime.advanceTimeBy(JUST_BEFORE);
        assertThat(pingsFromSender).as("PINGs at the first heartbeat").hasValue(1);
        senderTime.advanceTimeBy(HEARTBEAT.multipliedBy(3));
        assertThat(pingsFromSender).as("PINGs after four heartbeats").hasValue(4);
        // A sender that keeps sending PINGs is never idle to itself, whatever the receiver does.
        assertThat(sent.toFuture()).isNotDone();
    }

    /**
     * Before it has the receiver's AUTH a sender sends HELLO and AUTH and nothing else, however
     * long it waits: the RDMA transport posts only two small receives until the ring is up.
     */
    @Test
    void aSenderSendsNoPingBeforeItHasTheReceiversAuth() throws Exception {
        java.util.List<FrameType> fromSender = new java.util.concurrent.CopyOnWriteArrayList<>();
        TransportServer mute = transport.listen(new InetSocketAddress(0), OPTIONS.transportOptions(), c -> c.start(
                controlFrames((type, payload) -> {
                    fromSender.add(type);
                    if (type == FrameType.HELLO) {
                        // A receiver's HELLO, then silence: the sender's AUTH is never answered.
                        c.sendControl(FrameType.HELLO, new io.rdmaflux.internal.protocol.Hello(
                                io.rdmaflux.internal.protocol.Hello.Role.RECEIVER, new byte[32], 4096, 4).encode());
                    }
                }))).block(WAIT);
        try {
            FrameConnection c = transport.connect(mute.address(), OPTIONS.transportOptions()).block(WAIT);
            Mono<Void> sent = new SenderSession(c, KEY, OPTIONS, StreamMetadata.empty(), s -> Flux.<Chunk>never(),
                    Timers.on(senderTime)).run().cache();
            sent.subscribe(v -> { }, e -> { });
            await("the sender's HELLO and AUTH").atMost(WAIT).until(() -> fromSender.size() >= 2);
            assertThat(fromSender).containsExactly(FrameType.HELLO, FrameType.AUTH);

            // Two heartbeats of silence, still inside the handshake timeout.
            senderTime.advanceTimeBy(HEARTBEAT.multipliedBy(2).plus(JUST_BEFORE));
            Thread.sleep(100);
            assertThat(fromSender).as("frames before the receiver's AUTH").containsExactly(FrameType.HELLO, FrameType.AUTH);
        } finally {
            mute.dispose();
        }
    }

    @Test
    void aPeerThatNeverSpeaksIsFailedAtTheHandshakeTimeoutAndTold() throws Exception {
        FrameConnection mute = transport.connect(server.address(), OPTIONS.transportOptions()).block(WAIT);
        CompletableFuture<ByteBuffer> errorFrame = new CompletableFuture<>();
        mute.start(controlFrames((type, payload) -> {
            if (type == FrameType.ERROR) {
                errorFrame.complete(payload);
            }
        }));
        ReceiverSession session = receiver.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        receiverTime.advanceTimeBy(HANDSHAKE.minus(JUST_BEFORE));
        assertThat(session.isFinished()).as("failed before the handshake timeout").isFalse();

        receiverTime.advanceTimeBy(JUST_BEFORE);
        assertThat(session.isFinished()).as("failed at the handshake timeout").isTrue();
        StepVerifier.create(session.result())
                .expectErrorSatisfies(e -> {
                    assertCode(e, ErrorCode.TIMEOUT);
                    assertThat(e).hasMessageContaining("did not complete within 3 s");
                })
                .verify(WAIT);
        assertCode(ControlFrames.decodeError(errorFrame.get(WAIT.toSeconds(), TimeUnit.SECONDS)), ErrorCode.TIMEOUT);
    }

    @Test
    void aCancelledReadEndsTheStreamAfterTheGraceAndNotBefore() throws Exception {
        Mono<Void> sent = startSilentSender();
        ReceiverSession session = receiver.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        BaseSubscriber<ByteBuffer> reader = new BaseSubscriber<>() { };
        inbound.get(WAIT.toSeconds(), TimeUnit.SECONDS).receive().subscribe(reader);

        reader.cancel();
        Duration grace = Duration.ofMillis(ReceiverSession.CANCEL_GRACE_MS);
        receiverTime.advanceTimeBy(grace.minus(JUST_BEFORE));
        assertThat(session.isFinished()).as("ended before the cancel grace").isFalse();

        receiverTime.advanceTimeBy(JUST_BEFORE);
        assertThat(session.isFinished()).as("ended at the cancel grace").isTrue();
        StepVerifier.create(sent).expectErrorSatisfies(e -> {
            assertCode(e, ErrorCode.CANCELLED);
            assertThat(e).hasMessageContaining("receiver cancelled the stream");
        }).verify(WAIT);
    }

    /** A handler for a peer the test drives by hand: control frames to {@code onControl}, data released. */
    private static FrameHandler controlFrames(java.util.function.BiConsumer<FrameType, ByteBuffer> onControl) {
        return FrameHandler.controlOnly(onControl, cause -> { });
    }

    /** A sender on its own clock, whose source never sends anything. */
    private Mono<Void> startSilentSender() {
        FrameConnection c = transport.connect(server.address(), OPTIONS.transportOptions()).block(WAIT);
        Mono<Void> sent = new SenderSession(c, KEY, OPTIONS, StreamMetadata.empty(), s -> Flux.<Chunk>never(),
                Timers.on(senderTime)).run().cache();
        sent.subscribe(v -> { }, e -> { });
        return sent;
    }
}
