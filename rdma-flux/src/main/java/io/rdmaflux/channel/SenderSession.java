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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * The sending end of one stream: handshake, then data frames paced by credits, then END, and
 * success only when the receiver's END_ACK confirms the byte count.
 *
 * <p>Demand upstream is the smaller of the credits held and the free send slots, minus what
 * was already requested, so a slow receiver slows the source and memory stays bounded. A chunk
 * larger than the receiver's frame size is sent as several frames, one credit each.
 */
final class SenderSession extends SessionBase implements LiveStream {

    private final StreamMetadata metadata;
    private final Function<Session, ? extends Publisher<Chunk>> body;
    private final Sinks.One<Void> result = Sinks.one();
    private final StreamChecksum checksum = new StreamChecksum();
    private final Upstream upstream = new Upstream();
    private volatile Observation observation = new Observation(StreamObserver.NONE, this);
    /** What this sender's HELLO offers; tests clear it to play a sender older than STOPPED. */
    int features = Hello.TAKES_STOPPED;
    /** Where a stream on a kept connection begins; null for a new connection (HELLO). */
    private final KeptConnection.Continuation previous;
    /** On a kept connection: the receiver answered our NEXT. */
    private volatile boolean nextAnswered;

    // Flow state, guarded by "this".
    private int credits;
    private int inFlight;
    private long requested;
    /** Chunks received from upstream and not yet fully framed, oldest first. */
    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    private boolean upstreamDone;
    private boolean endSent;

    SenderSession(FrameConnection connection, byte[] key, ChannelOptions options, StreamMetadata metadata,
                         Function<Session, ? extends Publisher<Chunk>> body) {
        this(connection, key, options, metadata, body, Timers.system());
    }

    /** As above, with the session's timers on {@code timers} (tests give virtual time). */
    SenderSession(FrameConnection connection, byte[] key, ChannelOptions options, StreamMetadata metadata,
                  Function<Session, ? extends Publisher<Chunk>> body, Timers timers) {
        super(connection, key, options, Hello.Role.SENDER, timers);
        this.metadata = metadata;
        this.body = body;
        this.previous = connection instanceof KeptConnection.Lease lease ? lease.continuation() : null;
    }

    /**
     * The failure of a stream that never began: its kept connection was found closed before
     * the receiver answered NEXT, so nothing of the application's data was asked for yet, and
     * the stream may go again on a new connection.
     */
    static final class StaleConnection extends RuntimeException {
        StaleConnection(RdmaFluxException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** Reports this stream's start and end to {@code observer}; before {@link #run()}. */
    SenderSession observe(StreamObserver observer) {
        observation = new Observation(observer, this);
        return this;
    }

    /**
     * Runs the session; the Mono completes when the receiver confirmed the whole stream. The
     * application's data is subscribed with the Reactor {@code Context} of this Mono's subscriber,
     * so a source made with {@code deferContextual} sees what the caller wrote downstream.
     */
    Mono<Void> run() {
        Mono<Void> outcome = Mono.deferContextual(context -> {
            upstream.context = Context.of(context);
            return result.asMono()
                    .doOnSubscribe(s -> {
                        if (previous != null) {
                            beginNext(previous, () -> send(FrameType.NEXT, ControlFrames.next(localNonce)));
                        } else {
                            begin(new Hello(Hello.Role.SENDER, localNonce, options.frameSize(),
                                    options.receiveSlots(), features));
                        }
                    });
        });
        return outcome
                // After the cancel has reached the sink, so that the failure is not dropped
                // (and logged as such) on the subscriber that cancelled.
                .doFinally(s -> {
                    if (s == SignalType.CANCEL) {
                        fail(new RdmaFluxException(ErrorCode.CANCELLED, "sender cancelled the stream " + progress()));
                    }
                });
    }

    @Override
    void onControl(FrameType type, ByteBuffer payload) {
        switch (type) {
            case AUTH -> onAuth(ControlFrames.decodeAuth(payload));
            case CREDIT -> onCredit(ControlFrames.decodeCredit(payload));
            case END_ACK -> onEndAck(ControlFrames.decodeEndAck(payload));
            case NEXT -> onNext(ControlFrames.decodeNext(payload));
            default -> throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected " + type + " frame from receiver");
        }
    }

    @Override
    void onHello(Hello hello) {
        // The sender proves itself first, so that a receiver with another key learns it
        // before it gives anything away.
        sendAuth();
    }

    private void onAuth(byte[] proof) {
        synchronized (this) {
            if (isAuthenticated() || previous != null) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected AUTH from receiver");
            }
            verifyPeerAuth(proof);
        }
        startStream();
    }

    /** The receiver answered our NEXT on a kept connection: the stream's own keys from here on. */
    private void onNext(byte[] receiverNonce) {
        synchronized (this) {
            if (previous == null || nextAnswered) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "unexpected NEXT from receiver");
            }
            nextAnswered = true;
            rekey(localNonce, receiverNonce);
        }
        startStream();
    }

    /** The receiver is authenticated (AUTH, or NEXT on a kept connection): METADATA, then the data. */
    private void startStream() {
        Session session;
        synchronized (this) {
            markAuthenticated();
            credits = peerHello().receiveSlots();
            send(FrameType.METADATA, metadata.encode());
            session = new Session(localNonce, peerNonce(), connection.name(), connection.describe(), metadata);
        }
        observation.started();
        Publisher<Chunk> source;
        try {
            source = body.apply(session);
        } catch (RuntimeException e) {
            // A handler may refuse a stream with its own code (an unknown codec, say).
            throw RdmaFluxException.wrap(e, ErrorCode.SOURCE_FAILED);
        }
        source.subscribe(upstream);
    }

    private void onCredit(int n) {
        synchronized (this) {
            if (!isAuthenticated()) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "CREDIT before authentication");
            }
            credits += n;
            if (credits > peerHello().receiveSlots()) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "receiver granted more credits than its ring holds");
            }
            drainPending();
        }
        pump();
    }

    @Override
    public void onDataFrame(Chunk payload) {
        payload.release();
        fail(new RdmaFluxException(ErrorCode.PROTOCOL, "receiver sent a DATA frame"));
    }

    @Override
    public void onSendSlotFree() {
        synchronized (this) {
            inFlight--;
        }
        guard(this::drainAndPump);
    }

    private void drainAndPump() {
        synchronized (this) {
            drainPending();
        }
        pump();
    }

    private void onEndAck(long bytes) {
        synchronized (this) {
            if (!endSent) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "END_ACK before END");
            }
            if (bytes != checksum.bytes()) {
                throw new RdmaFluxException(ErrorCode.CHECKSUM, "receiver confirmed " + bytes + " bytes, "
                        + checksum.bytes() + " were sent");
            }
        }
        if (succeed()) {
            afterClose(() -> {
                observation.ended(null, false);
                result.tryEmitEmpty();
            });
        }
    }

    /** Requests as many chunks as credits and send slots allow; never while chunks wait. */
    private void pump() {
        long want;
        synchronized (this) {
            if (isFinished() || upstreamDone || !pending.isEmpty() || !isAuthenticated()) {
                return;
            }
            want = Math.min(credits, options.sendSlots() - inFlight) - requested;
            if (want <= 0) {
                return;
            }
            requested += want;
        }
        upstream.request(want);
    }

    /** Sends frames cut from the waiting chunks while credits and send slots last. Caller holds the lock. */
    private void drainPending() {
        while (!pending.isEmpty() && credits > 0 && inFlight < options.sendSlots() && !isFinished()) {
            Pending p = pending.peek();
            ByteBuffer b = p.chunk.buffer();
            int len = Math.min(b.remaining(), peerHello().frameSize());
            ByteBuffer slice = b.slice(b.position(), len);
            b.position(b.position() + len);
            p.refs.incrementAndGet();
            if (!b.hasRemaining()) {
                pending.poll();
                p.drop();
            }
            checksum.update(slice);
            credits--;
            inFlight++;
            noteSent();
            connection.sendData(Chunk.of(slice, p::drop));
        }
        if (pending.isEmpty() && upstreamDone && !endSent && !isFinished()) {
            endSent = true;
            send(FrameType.END, ControlFrames.end(checksum.bytes(), checksum.crc()));
        }
    }

    /**
     * A chunk being cut into frames. It is released when its last frame has left the
     * transport: each frame holds one reference, and the cutting holds one until it is done.
     */
    private static final class Pending {
        final Chunk chunk;
        final AtomicInteger refs = new AtomicInteger(1);

        Pending(Chunk chunk) {
            this.chunk = chunk;
        }

        void drop() {
            if (refs.decrementAndGet() == 0) {
                chunk.release();
            }
        }
    }

    private void onUpstreamNext(Chunk chunk) {
        synchronized (this) {
            requested--;
            if (isFinished()) {
                chunk.releaseQuietly();
                return;
            }
            if (!chunk.buffer().hasRemaining()) {
                chunk.release();
            } else {
                pending.add(new Pending(chunk));
            }
        }
        // On the source's thread: a transport shut down meanwhile fails the stream, not the source.
        guard(this::drainAndPump);
    }

    private void onUpstreamComplete() {
        synchronized (this) {
            upstreamDone = true;
        }
        guard(this::drainAndPump);
    }

    @Override
    String peerRole() {
        return "receiver";
    }

    @Override
    public StreamOutcome.Side side() {
        return StreamOutcome.Side.SENDER;
    }

    @Override
    public String peer() {
        return connection.describe();
    }

    @Override
    public synchronized long bytes() {
        return checksum.bytes();
    }

    @Override
    public synchronized int creditsInFlight() {
        Hello hello = peerHello();
        return hello == null || !isAuthenticated() ? 0 : hello.receiveSlots() - credits;
    }

    @Override
    String progress() {
        return "after " + checksum.bytes() + " bytes were sent";
    }

    @Override
    void onFailed(RdmaFluxException error) {
        upstream.cancel();
        synchronized (this) {
            while (!pending.isEmpty()) {
                pending.poll().drop();
            }
        }
        // A kept connection found closed before our NEXT was answered: no byte of the stream
        // was asked for (the body runs only once the receiver has answered), so it may go again.
        boolean stale = previous != null && !nextAnswered && connectionLost();
        afterClose(() -> {
            if (stale) {
                result.tryEmitError(new StaleConnection(error));
                return;
            }
            observation.ended(error, false);
            result.tryEmitError(error);
        });
    }

    /** Subscribes to the application's data; its demand is driven by {@link #pump()}. */
    private final class Upstream extends BaseSubscriber<Chunk> {

        /** The Context of whoever subscribed to {@link #run()}; set before the data is subscribed. */
        volatile Context context = Context.empty();

        @Override
        public Context currentContext() {
            return context;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            pump();
        }

        @Override
        protected void hookOnNext(Chunk chunk) {
            onUpstreamNext(chunk);
        }

        @Override
        protected void hookOnComplete() {
            onUpstreamComplete();
        }

        @Override
        protected void hookOnError(Throwable t) {
            fail(RdmaFluxException.wrap(t, ErrorCode.SOURCE_FAILED));
        }
    }
}
