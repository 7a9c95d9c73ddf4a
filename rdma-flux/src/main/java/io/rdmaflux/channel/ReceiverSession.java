package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * The receiving end of one stream: handshake, then data frames into a bounded queue that the
 * application drains at its own pace ({@link InboundQueue}: credits back to the sender as slots
 * are released, the END frame's count and checksum verified before the stream may complete).
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
 * {@link Admission} and the transport holds no receive slot for it ({@link AdmissionTicket}).
 */
final class ReceiverSession extends SessionBase implements LiveStream {

    static final long CANCEL_GRACE_MS = 3000;

    private final Function<? super InboundStream, ? extends Publisher<Void>> handler;
    private final AdmissionTicket admission;
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
    /** How long a handler that has not read the stream when it failed may take to end on its own. */
    private static final Duration UNREAD_WAIT = Duration.ofSeconds(5);
    private final InboundQueue inbound;

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
        this.previous = connection instanceof KeptConnection.Lease lease ? lease.continuation() : null;
        this.admission = new AdmissionTicket(admission, this,
                previous != null ? ((KeptConnection.Lease) connection).kept() : null);
        this.inbound = new InboundQueue(connection.receiveSlots(), () -> !isFinished() && !endVerified && !cancelled,
                // On the application's thread, releasing a buffer: not the place for a transport's refusal.
                grant -> guard(() -> send(FrameType.CREDIT, ControlFrames.credit(grant))));
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
        admission.waiting();
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
        admission.handshakeEnded();
        admission.claim();
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
        admission.claimNext();
        markAuthenticated();
        // The ring must be ready before the sender learns its credits from our NEXT.
        connection.acceptData();
        answerNext(senderNonce);
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
        if (inbound.offer(payload) == InboundQueue.Offer.REFUSED) {
            // Never a frame quietly lost: the checksum counted it, so END would still verify.
            fail(new RdmaFluxException(ErrorCode.PROTOCOL,
                    endVerified ? "DATA frame from the sender after its END" : "sender exceeded its credits"));
        }
    }

    private void onEnd(ControlFrames.End end) {
        if (!streamStarted) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "END before METADATA");
        }
        inbound.verify(end);
        endVerified = true;
        inbound.complete();
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
            // The handler is done with every slot: the claim stays with a connection that will be
            // kept, before its sender can learn of the END_ACK and send its next stream's NEXT.
            KeptConnection kept = keeps();
            admission.keepOrEnd(kept);
            if (!closeOrKeep(this::sendEndAck) && kept != null) {
                admission.connectionGone(kept); // closed meanwhile rather than kept, and its ring with it
            }
            afterClose(() -> {
                observation.ended(null, false);
                result.tryEmitEmpty();
            });
        }
    }

    private void sendEndAck() {
        try {
            send(FrameType.END_ACK, ControlFrames.endAck(inbound.bytes()));
        } catch (RuntimeException e) {
            // The outcome is claimed: it must be reported even if the frame could not go
            // (a transport shut down refuses it).
            log.debug("END_ACK to {} not sent: {}", connection.describe(), describe(e));
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
        return inbound.bytes();
    }

    @Override
    public int creditsInFlight() {
        return inbound.creditsInFlight();
    }

    @Override
    String progress() {
        return "after " + inbound.bytes() + " bytes were received";
    }

    @Override
    void onFailed(RdmaFluxException error) {
        failure = error;
        admission.handshakeEnded();
        // The connection is closed and its ring let go; slots the handler still holds go
        // as it is cancelled, within moments.
        admission.streamEnded();
        boolean reading = inbound.reading();
        // The inbound stream may be over already (END verified, then the handler failed while
        // writing): then the failure is reported through result() alone, not dropped loudly.
        inbound.fail(error);
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
        inbound.releaseUnclaimed();
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
            return inbound.take(() -> failure)
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
