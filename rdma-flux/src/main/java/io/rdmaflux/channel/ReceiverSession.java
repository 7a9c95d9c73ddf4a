package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.internal.protocol.StreamChecksum;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * The receiving end of one stream: handshake, then data frames into a bounded queue that the
 * application drains at its own pace, credits back to the sender as slots are released, and
 * the END frame's count and checksum verified before the stream may complete.
 *
 * <p>The application's handler gets an {@link InboundStream} and returns a {@code Publisher<Void>}
 * that completes when it has finished with the data (written and closed a file, say). Only
 * then does the sender get its END_ACK, so a sender's success means the receiver's consumer
 * succeeded too. The handler's data completes only after a verified END, and ends with the
 * error if the session fails before; if the session fails after END but before the handler
 * has completed, the handler's subscription is cancelled so that it does not commit (a file
 * sink removes its partial file). Once the handler has completed, the stream has succeeded,
 * whatever becomes of the END_ACK.
 *
 * <p>Until the sender has authenticated, the session counts against its receiver's
 * {@link Admission} and the transport holds no receive slot for it.
 */
final class ReceiverSession extends SessionBase implements LiveStream {

    /** How long a completion waits out a failure being emitted on another thread. */
    private static final Duration EMIT_WAIT = Duration.ofSeconds(2);

    static final long CANCEL_GRACE_MS = 3000;

    private final Function<? super InboundStream, ? extends Publisher<Void>> handler;
    private final Admission admission;
    private final AtomicBoolean handshakeCounted;
    /** Where a stream on a kept connection begins; null for a new connection (HELLO). */
    private final KeptConnection.Continuation previous;
    /** Whether this receiver's HELLO offers to keep the connection after the stream. */
    private boolean offerReuse;
    /** The handler's run, cancelled if the session fails before the handler completed. */
    private final Disposable.Swap handlerRun = Disposables.swap();
    /**
     * Completes when the handler has ended (or was cancelled): a failure is reported after it,
     * so that a tool exiting on the outcome does not cut short its sink's clean-up. Emitted by
     * the handler's run (its doFinally, once onHandlerComplete or onHandlerError has returned),
     * or in onMetadata where no run starts.
     */
    private final Sinks.Empty<Void> handlerEnded = Sinks.empty();
    private final Sinks.One<Void> result = Sinks.one();
    private final StreamChecksum checksum = new StreamChecksum();
    private final AtomicInteger creditsToReturn = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    /** How long a handler that has not read the stream when it failed may take to end on its own. */
    private static final Duration UNREAD_WAIT = Duration.ofSeconds(5);
    private final int creditBatch;
    private final Sinks.Many<Chunk> inbound;

    private volatile boolean streamStarted;
    private volatile boolean endVerified;
    /** The handler has ended, one way or the other. */
    private volatile boolean handlerDone;
    /**
     * The handler completed after END was verified: the only end that earns an END_ACK. A
     * failed handler is done too, and its failure may lose the race to claim the outcome
     * against a verified END on the transport's thread: that END must then find nothing to
     * acknowledge.
     */
    private volatile boolean handlerSucceeded;
    private volatile RdmaFluxException failure;
    private volatile boolean cancelled;
    /** The handler completed before END: the failure that ends it is a success on this side. */
    private volatile RdmaFluxException stop;
    /** DATA frames taken whose credit has not gone back to the sender yet. */
    private final AtomicInteger unreturned = new AtomicInteger();
    private volatile Observation observation = new Observation(StreamObserver.NONE, this);

    /** A session admitted by {@code admission} (which counts it until its handshake ends). */
    ReceiverSession(FrameConnection connection, byte[] key, ChannelOptions options,
                    Function<? super InboundStream, ? extends Publisher<Void>> handler, Admission admission) {
        this(connection, key, options, handler, admission, Timers.system());
    }

    /** As above, with the session's timers on {@code timers} (tests give virtual time). */
    ReceiverSession(FrameConnection connection, byte[] key, ChannelOptions options,
                    Function<? super InboundStream, ? extends Publisher<Void>> handler, Admission admission,
                    Timers timers) {
        super(connection, key, options, Hello.Role.RECEIVER, timers);
        this.handler = handler;
        this.admission = admission;
        this.previous = connection instanceof KeptConnection.Lease lease ? lease.continuation() : null;
        if (previous != null) { // the kept connection's ring, and its claim on the budget, are this stream's now
            admission.takeOver(((KeptConnection.Lease) connection).kept(), this);
        }
        // A stream on a kept connection has no handshake to count: its peer authenticated before.
        this.handshakeCounted = new AtomicBoolean(previous == null);
        // Credits bound what can arrive to the ring size, so this queue never overflows
        // unless the sender breaks the credit rule.
        this.inbound = Sinks.many().unicast().onBackpressureBuffer(
                Queues.<Chunk>get(connection.receiveSlots() + 1).get());
        this.creditBatch = Math.max(1, connection.receiveSlots() / 4);
    }

    /** Reports this stream's start and end to {@code observer}; before {@link #start()}. */
    ReceiverSession observe(StreamObserver observer) {
        observation = new Observation(observer, this);
        return this;
    }

    /**
     * Offers the sender to keep the connection after a stream that ends well (HELLO features
     * bit {@link Hello#REUSES}); only where the transport can hold an idle connection without
     * its ring. Before {@link #start()}.
     */
    ReceiverSession offerReuse(boolean offer) {
        this.offerReuse = offer && connection.canIdle();
        return this;
    }

    /** Starts the session: sends HELLO and waits for the sender, or on a kept connection waits for its NEXT. */
    ReceiverSession start() {
        if (previous != null) {
            // The sender's NEXT is delivered right after this (the idle connection received it).
            beginNext(previous, () -> { });
            return this;
        }
        admission.waiting(this);
        begin(new Hello(Hello.Role.RECEIVER, localNonce, connection.maxFramePayload(), connection.receiveSlots(),
                offerReuse ? Hello.REUSES : 0));
        return this;
    }

    /** Cancels the stream on the application's behalf: the sender is told, the handler cancelled. */
    void cancel() {
        fail(new RdmaFluxException(ErrorCode.CANCELLED, "receiver cancelled the stream " + progress()));
    }

    /** Refuses a peer still in its handshake: its receiver is being disposed gracefully. */
    void refuseShuttingDown() {
        fail(new RdmaFluxException(ErrorCode.BUSY, "receiver shutting down: it takes no new streams"));
    }

    /** Cancels a stream that outlasted its receiver's graceful dispose. */
    void cancelShuttingDown() {
        fail(new RdmaFluxException(ErrorCode.CANCELLED, "receiver shut down before the stream ended " + progress()));
    }

    /**
     * Refuses a peer still in its handshake, to give its place to a newer connection when all
     * places are taken ({@link Admission}).
     */
    void displace() {
        fail(new RdmaFluxException(ErrorCode.BUSY,
                "receiver busy: a newer connection took this one's place before it authenticated"));
    }

    /** The other side of this session, for messages. */
    @Override
    public String peer() {
        return connection.describe();
    }

    /** Completes when the stream was received whole and the handler finished; errors otherwise. */
    Mono<Void> result() {
        return result.asMono();
    }

    @Override
    void onControl(FrameType type, ByteBuffer payload) {
        switch (type) {
            case AUTH -> onAuth(ControlFrames.decodeAuth(payload));
            case METADATA -> onMetadata(StreamMetadata.decode(payload));
            case END -> onEnd(ControlFrames.decodeEnd(payload));
            case NEXT -> onNext(ControlFrames.decodeNext(payload));
            default -> throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected " + type + " frame from sender");
        }
    }

    @Override
    void onHello(Hello hello) {
        // The sender proves itself first.
    }

    private void onAuth(byte[] proof) {
        if (isAuthenticated()) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected AUTH from sender");
        }
        verifyPeerAuth(proof);
        endHandshake();
        String refusal = admission.claim(this);
        if (refusal != null) {
            throw new RdmaFluxException(ErrorCode.BUSY, refusal);
        }
        markAuthenticated();
        // The ring must be ready before the sender learns its credits from our AUTH.
        connection.acceptData();
        sendAuth();
    }

    /**
     * The next stream on a kept connection: it has the claim its connection kept (or, should
     * that be gone, claims memory as a new sender's stream does), then our NEXT answers with a
     * fresh nonce, and both directions seal with the new stream's keys.
     */
    private void onNext(byte[] senderNonce) {
        if (previous == null || isAuthenticated()) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected NEXT from sender");
        }
        String refusal = admission.holds(this) ? null : admission.claim(this);
        if (refusal != null) {
            throw new RdmaFluxException(ErrorCode.BUSY, refusal);
        }
        markAuthenticated();
        // The ring must be ready before the sender learns its credits from our NEXT.
        connection.acceptData();
        answerNext(senderNonce);
    }

    /** The handshake is over (authenticated or failed): the session no longer counts as pending. */
    private void endHandshake() {
        if (handshakeCounted.compareAndSet(true, false)) {
            admission.handshakeEnded(this);
        }
    }

    private void onMetadata(StreamMetadata metadata) {
        if (!isAuthenticated() || streamStarted) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected METADATA from sender");
        }
        streamStarted = true;
        if (isFinished()) {
            // Failed on another thread (a cancel, a timer) since the frame's own check, and
            // perhaps before it saw streamStarted: a handler started now would run unawaited.
            handlerEnded.tryEmitEmpty();
            return;
        }
        Session session = new Session(peerNonce(), localNonce, connection.name(), connection.describe(), metadata);
        Mono<Void> done;
        try {
            Context carried = ContextCarriage.restore(metadata);
            done = Mono.from(Objects.requireNonNull(handler.apply(new Stream(session)), "the handler returned null"))
                    .contextWrite(c -> c.putAll(carried.readOnly()));
        } catch (RuntimeException e) {
            handlerEnded.tryEmitEmpty();
            // A handler may refuse a stream with its own code (an unknown codec, say).
            throw RdmaFluxException.wrap(e, ErrorCode.SINK_FAILED);
        }
        // The handler's own run says when it ended, cancelled included: a failure on another
        // thread may dispose the swap before this subscription is in it (update then disposes
        // it), and must not report before that.
        observation.started();
        handlerRun.update(done.doFinally(s -> handlerEnded.tryEmitEmpty())
                .subscribe(null, this::onHandlerError, this::onHandlerComplete));
    }

    @Override
    public void onDataFrame(Chunk payload) {
        heard();
        if (isFinished() || !streamStarted) {
            payload.release();
            if (!isFinished()) {
                fail(new RdmaFluxException(ErrorCode.PROTOCOL, "DATA before METADATA"));
            }
            return;
        }
        checksum.update(payload.buffer());
        unreturned.incrementAndGet();
        Chunk lease = Chunk.of(payload.buffer(), () -> {
            payload.release();
            returnCredit();
        });
        Sinks.EmitResult emitted = inbound.tryEmitNext(lease);
        if (emitted == Sinks.EmitResult.FAIL_OVERFLOW) {
            lease.releaseQuietly();
            fail(new RdmaFluxException(ErrorCode.PROTOCOL, "sender exceeded its credits"));
        } else if (emitted != Sinks.EmitResult.OK) {
            // The application cancelled: frames still in flight are dropped.
            lease.releaseQuietly();
        }
    }

    /** A slot came back: credits go to the sender in batches to keep control traffic small. */
    private void returnCredit() {
        int n = creditsToReturn.incrementAndGet();
        if (n >= creditBatch && !isFinished() && !endVerified && !cancelled) {
            int grant = creditsToReturn.getAndSet(0);
            if (grant > 0) {
                unreturned.addAndGet(-grant);
                // On the application's thread, releasing a buffer: not the place for a transport's refusal.
                guard(() -> send(FrameType.CREDIT, ControlFrames.credit(grant)));
            }
        }
    }

    private void onEnd(ControlFrames.End end) {
        if (!streamStarted) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "END before METADATA");
        }
        if (end.bytes() != checksum.bytes()) {
            throw new RdmaFluxException(ErrorCode.TRUNCATED, "stream incomplete: the sender sent " + end.bytes()
                    + " bytes but " + checksum.bytes() + " arrived");
        }
        if (end.crc() != checksum.crc()) {
            throw new RdmaFluxException(ErrorCode.CHECKSUM, "checksum mismatch: the " + checksum.bytes()
                    + " bytes received differ from those sent");
        }
        endVerified = true;
        // A handler made now: busyLooping's deadline runs from its creation, so a shared one
        // stopped retrying two seconds after start-up and threw on the first contention.
        inbound.emitComplete(Sinks.EmitFailureHandler.busyLooping(EMIT_WAIT));
        maybeAcknowledge();
    }

    private void onHandlerComplete() {
        handlerDone = true;
        if (!endVerified) {
            // Completed before the end: the handler took what it needed. A success here; the
            // sender is told so (STOPPED), or CANCELLED if it predates that code.
            stop = new RdmaFluxException(peerHello().has(Hello.TAKES_STOPPED) ? ErrorCode.STOPPED : ErrorCode.CANCELLED,
                    "receiver stopped the stream on purpose " + progress() + " (its handler completed before the end)");
            fail(stop);
            return;
        }
        handlerSucceeded = true;
        maybeAcknowledge();
    }

    private void onHandlerError(Throwable t) {
        handlerDone = true;
        fail(RdmaFluxException.wrap(t, ErrorCode.SINK_FAILED));
    }

    private void maybeAcknowledge() {
        // Claim the outcome before END_ACK leaves: once it is out, the sender may close at
        // once, and that close must not be taken for a sender that vanished mid-stream.
        // Both sides write their flag before reading the other's, so at least one sees both.
        if (endVerified && handlerSucceeded && finish()) {
            try {
                send(FrameType.END_ACK, ControlFrames.endAck(checksum.bytes()));
            } catch (RuntimeException e) {
                // The outcome is claimed: it must be reported even if the frame could not go
                // (a transport shut down refuses it).
                log.debug("END_ACK to {} not sent: {}", connection.describe(), describe(e));
            }
            // The handler is done with every slot. A connection that will be kept keeps the
            // claim with its ring (its next stream takes both over); otherwise the claim goes back.
            KeptConnection kept = keeps();
            admission.keepOrEnd(this, kept);
            if (!closeOrKeep() && kept != null) {
                admission.connectionGone(kept); // closed meanwhile rather than kept, and its ring with it
            }
            afterClose(() -> {
                observation.ended(null, false);
                result.tryEmitEmpty();
            });
        }
    }

    @Override
    public void onSendSlotFree() {
        // The receiver sends no data frames.
    }

    @Override
    String peerRole() {
        return "sender";
    }

    @Override
    public StreamOutcome.Side side() {
        return StreamOutcome.Side.RECEIVER;
    }

    @Override
    public long bytes() {
        return checksum.bytes();
    }

    @Override
    public int creditsInFlight() {
        return Math.max(0, unreturned.get());
    }

    @Override
    String progress() {
        return "after " + checksum.bytes() + " bytes were received";
    }

    @Override
    void onFailed(RdmaFluxException error) {
        failure = error;
        endHandshake();
        // The connection is closed and its ring let go; slots the handler still holds go
        // as it is cancelled, within moments.
        admission.streamEnded(this);
        boolean reading = subscribed.get();
        // The inbound stream may be over already (END verified, then the handler failed while
        // writing): then the failure is reported through result() alone, not dropped loudly.
        while (inbound.tryEmitError(error) == Sinks.EmitResult.FAIL_NON_SERIALIZED) {
            Thread.onSpinWait();
        }
        if (!handlerDone && (endVerified || !reading && !error.reportedByPeer())) {
            // A handler that reads the stream learns of the failure from it, with the reason.
            // After END the stream has completed and cannot carry it: without this the handler
            // would commit a stream that failed (a sender interrupted after END, a connection
            // lost before the END_ACK could go). A cancelled handler says nothing more; its
            // clean-up is its own to finish. Its run's doFinally marks it ended. Nor can the
            // failure reach a handler that never read, when this side failed (a cancel).
            handlerRun.dispose();
        } else if (!handlerDone && !reading) {
            // The sender failed: a handler that has not read yet learns of it when it does
            // (receiveChunks gives it the failure), as a shell's command finds its pipe broken
            // only when it reads: a command that ends on its own meanwhile keeps its own
            // status (pipefail's rightmost failure). One that never reads is cancelled after
            // UNREAD_WAIT.
            Mono.delay(UNREAD_WAIT, timers.scheduler()).subscribe(x -> handlerRun.dispose());
        }
        releaseUnclaimed();
        boolean succeeded = error == stop;
        afterClose(streamStarted ? handlerEnded.asMono() : Mono.empty(),
                () -> {
                    observation.ended(succeeded ? null : error, succeeded);
                    if (succeeded) {
                        result.tryEmitEmpty();
                    } else {
                        result.tryEmitError(error);
                    }
                });
    }

    /** If the application never subscribed, nobody will release what is queued: drain it here. */
    private void releaseUnclaimed() {
        if (subscribed.compareAndSet(false, true)) {
            inbound.asFlux().subscribe(Chunk::releaseQuietly, e -> { });
        }
    }

    private final class Stream implements InboundStream {

        private final Session session;

        Stream(Session session) {
            this.session = session;
        }

        @Override
        public StreamMetadata metadata() {
            return session.metadata();
        }

        @Override
        public Session session() {
            return session;
        }

        @Override
        public Flux<Chunk> receiveChunks() {
            return Flux.defer(() -> {
                if (!subscribed.compareAndSet(false, true)) {
                    RdmaFluxException failed = failure;
                    return Flux.error(failed != null ? failed
                            : new IllegalStateException("an inbound stream can be subscribed to only once"));
                }
                return inbound.asFlux();
            })
            .doOnCancel(() -> {
                // A cancel usually comes with the handler's own failure ("disk full"), which
                // is the reason worth reporting; give the handler a moment to say it.
                if (!endVerified) {
                    cancelled = true;
                    timers.scheduler().schedule(() -> fail(new RdmaFluxException(ErrorCode.CANCELLED,
                            "receiver cancelled the stream " + progress())), CANCEL_GRACE_MS, TimeUnit.MILLISECONDS);
                }
            })
            // The session outlives a cancelled subscriber by a few seconds; don't keep it alive.
            .transform(DetachOnCancel::edge);
        }
    }
}
