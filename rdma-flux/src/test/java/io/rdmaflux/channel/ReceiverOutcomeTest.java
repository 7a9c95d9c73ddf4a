package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static io.rdmaflux.channel.Outcomes.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportServer;
import io.rdmaflux.transport.memory.MemoryTransport;
import io.rdmaflux.transport.memory.MemoryTransport.Verdict;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.test.util.RaceTestUtils;

/**
 * The receiver's side of "nothing cut short": its handler completes (a sink commits) only after
 * a verified END and while the session stands; a session that fails before the handler
 * completed cancels it, even after END; a handler or source that fails with a code tells the
 * peer that code at once; once the handler has completed the stream has succeeded.
 */
class ReceiverOutcomeTest {

    private static final ChannelOptions OPTIONS = MemoryPair.OPTIONS;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    private static final int RACE_ROUNDS = 2_000;
    /**
     * For the race tests, which hold a frame back and hand it over themselves: no PING may
     * overtake it (a sealed frame out of order fails the session), however long a round stalls.
     */
    private static final ChannelOptions RACE_OPTIONS = OPTIONS.withLiveness(Duration.ofSeconds(60),
            Duration.ofSeconds(120));
    /** Before its fix the METADATA race was lost within 140 to 270 rounds. */
    private static final int METADATA_RACE_ROUNDS = 3_000;
    private static final int CANCEL_DELAY_SPINS = 200;
    /** The bytes {@code chunks(1)} sends. */
    private static final long SENT = 5000;

    /** A receiver whose handler reads everything, then waits for {@link #gate} before it "commits". */
    private static final class GatedReceiver {
        final CompletableFuture<Void> endVerified = new CompletableFuture<>();
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        final AtomicBoolean committed = new AtomicBoolean();
        final AtomicBoolean cancelled = new AtomicBoolean();
        final SingleStreamServer server;
        final Mono<Void> outcome;

        GatedReceiver(MemoryTransport t) {
            server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                    .handle(in -> in.receive().doOnComplete(() -> endVerified.complete(null)).then()
                            .then(Mono.fromFuture(gate))
                            .then(Mono.<Void>fromRunnable(() -> committed.set(true)))
                            .doOnCancel(() -> cancelled.set(true)))
                    .bindOne().block(WAIT);
            outcome = server.outcome().cache();
            outcome.subscribe(v -> { }, e -> { });
        }

        FluxSender sender(MemoryTransport t) {
            return FluxSender.create().port(server.address().getPort()).key("k").transport(t).options(OPTIONS);
        }

        void awaitEnd() throws Exception {
            endVerified.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** A transport that holds back the sender's frame of {@code type}, for a race to hand over. */
    private static MemoryTransport holding(FrameType type, CompletableFuture<ByteBuffer> held) {
        return new MemoryTransport().tamper((fromSender, t, payload) -> {
            if (fromSender && t == type) {
                held.complete(payload);
                return Verdict.DROP;
            }
            return Verdict.DELIVER;
        });
    }

    /** A listener on {@code t} whose connection becomes a started session with {@code handler}, handed to {@code session}. */
    private static TransportServer raceReceiver(MemoryTransport t, CompletableFuture<ReceiverSession> session,
                                                Function<InboundStream, Publisher<Void>> handler) {
        return t.listen(new InetSocketAddress(0), RACE_OPTIONS.transportOptions(), c -> session.complete(
                new ReceiverSession(c, KEY, RACE_OPTIONS, handler, new Admission(4, true)).start())).block(WAIT);
    }

    private static Flux<Chunk> chunks(int n) {
        return Flux.range(0, n).map(i -> Chunk.wrap(ByteBuffer.wrap(TestData.bytes(i, 5000))));
    }



    @Test
    void aSenderThatGivesUpAfterEndMakesTheReceiverCancelItsHandlerRatherThanCommit() throws Exception {
        MemoryTransport t = new MemoryTransport();
        GatedReceiver r = new GatedReceiver(t);
        Disposable sending = r.sender(t).send(StreamMetadata.empty(), s -> chunks(5)).subscribe(v -> { }, e -> { });
        r.awaitEnd();
        sending.dispose();
        Throwable outcome = failure(r.outcome);
        assertCode(outcome, ErrorCode.CANCELLED);
        assertThat(outcome).hasMessageContaining("sender reported");
        r.gate.complete(null);
        assertThat(r.cancelled).as("the handler was cancelled").isTrue();
        assertThat(r.committed).as("the handler committed").isFalse();
    }

    @Test
    void aConnectionLostAfterEndMakesTheReceiverCancelItsHandlerRatherThanCommit() throws Exception {
        AtomicBoolean endPassed = new AtomicBoolean();
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) -> {
            if (fromSender && type == FrameType.END) {
                endPassed.set(true);
                return Verdict.DELIVER;
            }
            // The sender's next frame after END (a PING) finds the connection gone.
            return fromSender && endPassed.get() ? Verdict.CUT_CONNECTION : Verdict.DELIVER;
        });
        GatedReceiver r = new GatedReceiver(t);
        Mono<Void> sent = r.sender(t).send(StreamMetadata.empty(), s -> chunks(5)).cache();
        sent.subscribe(v -> { }, e -> { });
        r.awaitEnd();
        assertCode(failure(r.outcome), ErrorCode.TRUNCATED);
        r.gate.complete(null);
        assertThat(r.committed).as("the handler committed").isFalse();
        assertThat(failure(sent)).as("the sender").isNotNull();
    }

    @Test
    void aHandlerThatCompletedHasSucceededEvenIfItsEndAckIsLost() {
        MemoryTransport t = new MemoryTransport().tamper((fromSender, type, payload) ->
                type == FrameType.END_ACK ? Verdict.CUT_CONNECTION : Verdict.DELIVER);
        GatedReceiver r = new GatedReceiver(t);
        r.gate.complete(null);
        Throwable sender = failure(r.sender(t).send(StreamMetadata.empty(), s -> chunks(5)));
        assertThat(failure(r.outcome)).as("the receiver").isNull();
        assertThat(r.committed).isTrue();
        assertCode(sender, ErrorCode.TRUNCATED);
    }

    /**
     * A handler that fails (its file could not be created, say) while END is being verified
     * must never be acknowledged: the sender would be told that a stream nobody stored
     * arrived. Each round races the handler's failure against END's arrival
     * ({@link RaceTestUtils#race}); whichever wins, the stream fails with the handler's reason.
     * It caught two faults, each within the first 20 rounds: a handler's end of any kind
     * counted for the END_ACK, so a failure between its flag and its claim on the outcome was
     * lost (rdrecv exited 70, rdsend 0); and END's completion of the inbound stream, meeting the
     * failure's emission, gave up at once (a retry handler whose deadline had long passed).
     */
    @Test
    void aHandlerThatFailsWhileEndArrivesIsNeverAcknowledged() throws Exception {
        for (int round = 0; round < RACE_ROUNDS; round++) {
            CompletableFuture<ByteBuffer> end = new CompletableFuture<>();
            MemoryTransport t = holding(FrameType.END, end);
            CompletableFuture<ReceiverSession> session = new CompletableFuture<>();
            CompletableFuture<Void> arrived = new CompletableFuture<>();
            CompletableFuture<Void> disk = new CompletableFuture<>();
            AtomicLong received = new AtomicLong();
            TransportServer server = raceReceiver(t, session, in -> Mono.when(
                    in.receiveChunks().doOnNext(chunk -> {
                        // The END frame's count must match what the session has seen.
                        if (received.addAndGet(chunk.remaining()) == SENT) {
                            arrived.complete(null);
                        }
                        chunk.release();
                    }).then(),
                    Mono.fromFuture(disk)));
            try {
                Mono<Void> sent = FluxSender.create().port(server.address().getPort()).key(KEY).transport(t)
                        .options(RACE_OPTIONS).send(StreamMetadata.empty(), s -> chunks(1)).cache();
                sent.subscribe(v -> { }, e -> { });
                ReceiverSession receiver = session.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                arrived.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                ByteBuffer endFrame = end.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                RaceTestUtils.race(() -> disk.completeExceptionally(new IOException("disk full")),
                        () -> receiver.onControlFrame(FrameType.END, endFrame));
                Throwable outcome = failure(receiver.result());
                assertThat(outcome).as("the receiver's outcome in round %d", round).isNotNull();
                assertCode(outcome, ErrorCode.SINK_FAILED);
                assertThat(outcome).hasMessageContaining("disk full");
                assertCode(failure(sent), ErrorCode.SINK_FAILED);
            } finally {
                server.dispose();
            }
        }
    }

    /**
     * A stream cancelled while its METADATA is being opened: either no handler starts, or the
     * failure is reported only after the handler ended. Each round races the cancel against
     * the METADATA frame. Before the fix a handler could start after the session had failed
     * and reported (the frame passed the session's check, then the cancel claimed the outcome
     * and saw no stream to wait for), or once started, before its run was subscribed (the
     * cancel disposed an empty swap and took the handler for ended): a file sink's part file
     * outlived the report.
     */
    @Test
    void aStreamCancelledAsItsMetadataArrivesLeavesNoHandlerRunningAfterTheReport() throws Exception {
        for (int round = 0; round < METADATA_RACE_ROUNDS; round++) {
            CompletableFuture<ByteBuffer> metadata = new CompletableFuture<>();
            MemoryTransport t = holding(FrameType.METADATA, metadata);
            CompletableFuture<ReceiverSession> session = new CompletableFuture<>();
            AtomicBoolean started = new AtomicBoolean();
            AtomicBoolean ended = new AtomicBoolean();
            TransportServer server = raceReceiver(t, session, in -> {
                started.set(true);
                return Mono.<Void>never().doFinally(s -> ended.set(true));
            });
            Disposable sending = null;
            try {
                // No data: DATA right behind the held METADATA would fail the session first.
                sending = FluxSender.create().port(server.address().getPort()).key(KEY).transport(t)
                        .options(RACE_OPTIONS).send(StreamMetadata.empty(), s -> Flux.never()).subscribe(v -> { }, e -> { });
                ReceiverSession receiver = session.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                ByteBuffer frame = metadata.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CompletableFuture<Boolean> settledAtReport = new CompletableFuture<>();
                receiver.result().subscribe(v -> settledAtReport.complete(false),
                        e -> settledAtReport.complete(!started.get() || ended.get()));
                // The cancel a random few microseconds late, to sweep the frame's way from the
                // session's check to the stream's start (opening its seal, decoding it).
                int delay = ThreadLocalRandom.current().nextInt(CANCEL_DELAY_SPINS);
                RaceTestUtils.race(() -> {
                    for (int i = 0; i < delay; i++) {
                        Thread.onSpinWait();
                    }
                    receiver.cancel();
                }, () -> receiver.onControlFrame(FrameType.METADATA, frame));
                assertThat(settledAtReport.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                        .as("no handler running when the failure was reported, round %d", round).isTrue();
                assertThat(!started.get() || ended.get()).as("a handler left running, round %d", round).isTrue();
            } finally {
                if (sending != null) {
                    sending.dispose();
                }
                server.dispose();
            }
        }
    }

    /** A handler that returns null instead of a publisher fails the stream at once, as one that throws. */
    @Test
    void aHandlerThatReturnsNullFailsTheStreamWithItsOwnCode() {
        MemoryTransport t = new MemoryTransport();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> null).bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        Throwable sender = failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t)
                .options(OPTIONS).send(StreamMetadata.empty(), s -> chunks(1)));
        Throwable receiver = failure(outcome);
        assertCode(receiver, ErrorCode.SINK_FAILED);
        assertThat(receiver).hasMessageContaining("the handler returned null");
        assertCode(sender, ErrorCode.SINK_FAILED);
    }

    @Test
    void aHandlerThatFailsWithACodeTellsTheSenderThatCodeAtOnce() {
        MemoryTransport t = new MemoryTransport();
        Sinks.Many<Chunk> data = Sinks.many().unicast().onBackpressureBuffer();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().take(2).then(Mono.error(
                        new RdmaFluxException(ErrorCode.INTERRUPTED, "receiver interrupted by SIGINT"))))
                .bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        int port = server.address().getPort();
        // The source never ends: only the receiver's failure can end the stream.
        Flux.range(0, 10).subscribe(i -> data.tryEmitNext(Chunk.wrap(ByteBuffer.wrap(TestData.bytes(i, 3000)))));
        Throwable sender = failure(FluxSender.create().port(port).key("k").transport(t).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> data.asFlux()));
        assertCode(sender, ErrorCode.INTERRUPTED);
        assertThat(sender).hasMessageContaining("receiver reported: receiver interrupted by SIGINT");
        assertCode(failure(outcome), ErrorCode.INTERRUPTED);
    }

    @Test
    void aSourceThatFailsWithACodeFailsTheReceiversHandlerWithThatCode() {
        MemoryTransport t = new MemoryTransport();
        CompletableFuture<Throwable> handlerSaw = new CompletableFuture<>();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().then().doOnError(handlerSaw::complete)
                        .doOnSuccess(v -> handlerSaw.complete(null)))
                .bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        Throwable sender = failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> chunks(3).concatWith(Mono.error(
                        new RdmaFluxException(ErrorCode.INTERRUPTED, "sender interrupted by SIGINT")))));
        assertCode(sender, ErrorCode.INTERRUPTED);
        Throwable receiver = failure(outcome);
        assertCode(receiver, ErrorCode.INTERRUPTED);
        assertThat(receiver).hasMessageContaining("sender reported: sender interrupted by SIGINT");
        assertThat(handlerSaw.join()).as("what the handler's data ended with").isInstanceOf(RdmaFluxException.class);
    }

    @Test
    void aFailureIsReportedOnlyAfterTheHandlerHasEndedSoItsCleanUpIsNotCutShort() {
        MemoryTransport t = new MemoryTransport();
        AtomicBoolean cleanedUp = new AtomicBoolean();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().then().onErrorResume(e -> Mono.delay(Duration.ofMillis(300))
                        .then(Mono.fromRunnable(() -> cleanedUp.set(true))).then(Mono.error(e))))
                .bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> chunks(3).concatWith(Mono.error(
                        new RdmaFluxException(ErrorCode.SOURCE_FAILED, "input went away")))));
        assertCode(failure(outcome), ErrorCode.SOURCE_FAILED);
        assertThat(cleanedUp).as("the handler had finished its clean-up when the outcome came").isTrue();
    }

    @Test
    void cancellingTheOutcomeCancelsTheStreamAndTellsTheSender() throws Exception {
        MemoryTransport t = new MemoryTransport();
        CompletableFuture<Void> started = new CompletableFuture<>();
        AtomicReference<SignalType> handlerEnded = new AtomicReference<>();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().doOnNext(b -> started.complete(null)).then()
                        .doFinally(handlerEnded::set))
                .bindOne().block(WAIT);
        Disposable waiting = server.outcome().subscribe(v -> { }, e -> { });
        Sinks.Many<Chunk> data = Sinks.many().unicast().onBackpressureBuffer();
        data.tryEmitNext(Chunk.wrap(ByteBuffer.allocate(100)));
        Mono<Void> sent = FluxSender.create().port(server.address().getPort()).key("k").transport(t).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> data.asFlux()).cache();
        sent.subscribe(v -> { }, e -> { });
        started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        waiting.dispose();
        Throwable sender = failure(sent);
        assertCode(sender, ErrorCode.CANCELLED);
        assertThat(sender).hasMessageContaining("receiver reported: receiver cancelled the stream");
        assertThat(handlerEnded.get()).as("how the handler ended").isIn(SignalType.ON_ERROR, SignalType.CANCEL);
        assertThat(server.isDisposed()).isTrue();
    }
}
