package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.FrameSeal;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What the sending and receiving ends of a stream share: the connection, the checks on every
 * control frame from the peer, and the one-way door to a final outcome. The handshake's keys and
 * the seals are {@link ControlSeals}', the heartbeats and timeouts {@link Liveness}'. Subclasses
 * handle the frames of their role.
 *
 * <p>Every control frame a side sends after its own AUTH is sealed ({@link FrameSeal}); every
 * frame from the peer after the peer's AUTH verified must open, or the stream fails. Before
 * that, only HELLO (first), AUTH, PING and ERROR are taken from the peer, and its ERROR frames
 * may not choose any code but a few ({@link PeerReports#UNAUTHENTICATED_CODES}).
 */
abstract class SessionBase implements FrameHandler {

    static final Logger log = Loggers.getLogger("io.rdmaflux.engine");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(6);

    final FrameConnection connection;
    final ChannelOptions options;
    final Timers timers;
    final byte[] localNonce;
    private final Hello.Role role;
    private final ControlSeals seals;
    private final Liveness liveness;

    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile boolean authenticated;
    /** The connection was lost (the transport said so), rather than a frame ending the stream. */
    private volatile boolean lost;

    SessionBase(FrameConnection connection, byte[] key, ChannelOptions options, Hello.Role role, Timers timers) {
        this.connection = connection;
        this.options = options;
        this.role = role;
        this.timers = timers;
        this.seals = new ControlSeals(connection, key, role);
        this.localNonce = seals.localNonce;
        this.liveness = new Liveness(options, timers);
    }

    /** The peer's HELLO, once it arrived; on a kept connection, the first stream's. */
    final Hello peerHello() {
        return seals.peerHello();
    }

    /** The peer's nonce of this stream: from its HELLO, or from its NEXT on a kept connection. */
    final byte[] peerNonce() {
        return seals.peerNonce();
    }

    /** Starts frame delivery and the liveness timer, then sends this side's HELLO. */
    final void begin(Hello hello) {
        ByteBuffer payload = seals.localHello(hello);
        liveness.start(this::tick);
        // HELLO goes out before frames are delivered, so no reply to the peer's HELLO can
        // overtake it.
        try {
            send(FrameType.HELLO, payload);
            connection.start(this);
        } catch (RejectedExecutionException e) {
            // The transport stopped under us (Transports.shutdown): its loops refuse work.
            fail(stopped(e));
        }
    }

    /**
     * Starts a stream on a kept connection ({@code docs/protocol.md}, "Kept connections"): the
     * peer is the one the previous stream authenticated, and frames stay sealed with that
     * stream's keys and counters until both NEXT frames have crossed ({@link #rekey}). Then the
     * liveness timer and frame delivery, then {@code first} (a sender's NEXT).
     */
    final void beginNext(KeptConnection.Continuation previous, Runnable first) {
        seals.continueFrom(previous);
        liveness.start(this::tick);
        try {
            connection.start(this);
            first.run();
        } catch (RejectedExecutionException e) {
            fail(stopped(e));
        }
    }

    /** The sender's side of {@link ControlSeals#rekey}, on the receiver's NEXT. */
    final void rekey(byte[] senderNonce, byte[] receiverNonce) {
        seals.rekey(senderNonce, receiverNonce);
    }

    /** The receiver's answer to NEXT: {@link ControlSeals#answerNext}. */
    final void answerNext(byte[] senderNonce) {
        liveness.sent();
        seals.answerNext(senderNonce);
    }

    /** Whether both HELLOs offered to keep the connection after a stream that ends well. */
    final boolean reuses() {
        return seals.reuses();
    }

    /** The connection was lost under the stream (not ended by a frame). */
    final boolean connectionLost() {
        return lost;
    }

    /**
     * After a stream that ended well: keeps the connection for the next stream when both sides
     * offered to and it is a kept one ({@link KeptConnection}), otherwise closes it. Whether
     * the connection is idle now, kept (false when closed, or closed meanwhile).
     */
    final boolean closeOrKeep() {
        return closeOrKeep(() -> { });
    }

    /**
     * As {@link #closeOrKeep()}, sending the stream's last frame with {@code lastWord} first: on a
     * kept connection once it is idle, so that the peer's next stream, which may follow that frame
     * at once, finds it so ({@link KeptConnection.Lease#keep}).
     */
    final boolean closeOrKeep(Runnable lastWord) {
        if (connection instanceof KeptConnection.Lease lease && reuses()) {
            return lease.keep(seals.continuation(), lastWord);
        }
        lastWord.run();
        closeQuietly();
        return false;
    }

    /** The connection {@link #closeOrKeep} will try to keep after a stream that ended well; null if it closes it. */
    final KeptConnection keeps() {
        return connection instanceof KeptConnection.Lease lease && reuses() ? lease.kept() : null;
    }

    /** Queues a control frame, sealed once this side has sent its AUTH. */
    final void send(FrameType type, ByteBuffer payload) {
        liveness.sent();
        seals.send(type, payload);
    }

    /** Sends this side's AUTH; every frame after it is sealed. */
    final void sendAuth() {
        liveness.sent();
        seals.sendAuth();
    }

    /**
     * Verifies the peer's AUTH; from the next frame on, the peer's frames must be sealed.
     *
     * @throws RdmaFluxException AUTHENTICATION when the proof does not verify
     */
    final void verifyPeerAuth(byte[] proof) {
        if (!seals.verifyPeerAuth(proof)) {
            throw new RdmaFluxException(ErrorCode.AUTHENTICATION,
                    PeerReports.wrongKey(peerRole(), connection.describe(), "used"));
        }
    }

    final void markAuthenticated() {
        authenticated = true;
    }

    final boolean isAuthenticated() {
        return authenticated;
    }

    final boolean isFinished() {
        return finished.get();
    }

    /** Marks the session done exactly once; false when it already was. */
    final boolean finish() {
        if (!finished.compareAndSet(false, true)) {
            return false;
        }
        liveness.stop();
        return true;
    }

    /** Data was sent: counts as a sign of life for the peer, so no PING is needed. */
    final void noteSent() {
        liveness.sent();
    }

    @Override
    public final void onControlFrame(FrameType type, ByteBuffer payload) {
        liveness.heard();
        if (isFinished()) {
            return;
        }
        try {
            if (type != FrameType.METADATA && payload.remaining() > ProtocolVersion.MAX_SMALL_CONTROL_PAYLOAD) {
                // Transports may check this earlier (TCP does, before reading the payload).
                throw new RdmaFluxException(ErrorCode.PROTOCOL, type + " frame of " + payload.remaining()
                        + " bytes is too large");
            }
            FrameSeal seal = seals.incoming();
            if (seal != null) {
                payload = seal.open(type, payload);
            } else if (seals.peerHello() == null && type != FrameType.HELLO && type != FrameType.ERROR) {
                throw new RdmaFluxException(ErrorCode.VERSION, connection.describe() + " is not an rdma-flux "
                        + peerRole() + " (its first frame was " + type + ", not HELLO)");
            } else if (type != FrameType.HELLO && type != FrameType.AUTH && type != FrameType.ERROR
                    && type != FrameType.PING) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, type + " frame from the " + peerRole()
                        + " before it authenticated");
            }
            switch (type) {
                case PING -> { }
                case ERROR -> failFromPeer(ControlFrames.decodeError(payload), seal != null);
                case HELLO -> onPeerHello(payload);
                default -> onControl(type, payload);
            }
        } catch (RdmaFluxException e) {
            fail(e);
        } catch (RejectedExecutionException e) {
            fail(stopped(e));
        } catch (RuntimeException e) {
            fail(RdmaFluxException.wrap(e, ErrorCode.INTERNAL));
        }
    }

    private void onPeerHello(ByteBuffer payload) {
        if (seals.peerHello() != null) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "a second HELLO from " + connection.describe());
        }
        ByteBuffer asSent = ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
        Hello hello = Hello.decode(payload);
        if (hello.role() == role) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, connection.describe() + " is an rdma-flux "
                    + (role == Hello.Role.SENDER ? "sender" : "receiver") + " too; a sender connects to a receiver");
        }
        seals.peerHello(hello, asSent);
        onHello(hello);
    }

    /** Marks the peer alive; for data frames, which bypass {@link #onControlFrame}. */
    final void heard() {
        liveness.heard();
    }

    /** The peer's HELLO arrived and checked out; the keys are known. */
    abstract void onHello(Hello hello);

    /** Handles every control frame but HELLO, PING and ERROR, its seal (if any) removed. */
    abstract void onControl(FrameType type, ByteBuffer payload);

    /**
     * Ends the session with a local failure: tells the peer why (one ERROR frame), closes the
     * connection and reports the failure to the application.
     */
    final void fail(RdmaFluxException error) {
        if (!finish()) {
            return;
        }
        log.debug("stream failed locally: {}", error.getMessage());
        // Neither the ERROR frame nor the close may keep the outcome from the application: a
        // transport that was shut down refuses both (its event loops reject new work).
        try {
            send(FrameType.ERROR, ControlFrames.error(error.code(), error.getMessage()));
        } catch (RuntimeException e) {
            log.debug("could not tell the {} why: {}", peerRole(), describe(e));
        }
        closeQuietly();
        onFailed(error);
    }

    /**
     * Runs a step that hands work to the transport from a thread of the application or a
     * timer: a transport shut down meanwhile fails the stream, rather than throwing into the
     * caller (a source, a handler releasing a buffer) or ending a timer's schedule.
     */
    final void guard(Runnable step) {
        try {
            step.run();
        } catch (RejectedExecutionException e) {
            fail(stopped(e));
        }
    }

    /** Closes the connection; a transport already shut down has closed it, and may refuse. */
    final void closeQuietly() {
        try {
            connection.close();
        } catch (RuntimeException e) {
            log.debug("closing {} failed: {}", connection.describe(), describe(e));
        }
    }

    /** The failure of a stream whose transport refused work: it was shut down mid-stream. */
    private RdmaFluxException stopped(RejectedExecutionException e) {
        return new RdmaFluxException(ErrorCode.TRUNCATED, "the " + connection.name() + " transport was shut down "
                + "while the stream was in flight (" + describe(e) + ") " + progress());
    }

    /** Ends the session because the peer sent an ERROR frame ({@link PeerReports} words it). */
    private void failFromPeer(RdmaFluxException peerError, boolean authentic) {
        if (!finish()) {
            return;
        }
        closeQuietly();
        onFailed(PeerReports.fromPeer(peerError, authentic, peerRole(), connection.describe()));
    }

    /**
     * Ends the session successfully and closes the connection after what is queued, or keeps it
     * for the next stream ({@link #closeOrKeep()}).
     */
    final boolean succeed() {
        if (!finish()) {
            return false;
        }
        closeOrKeep();
        return true;
    }

    /**
     * Runs {@code report} once the connection has closed (bounded by {@link #CLOSE_WAIT}), so
     * that the application learns the outcome only after our last frame has left: a tool that
     * exits on the outcome would otherwise cut off its own END_ACK or ERROR.
     */
    final void afterClose(Runnable report) {
        afterClose(Mono.empty(), report);
    }

    /** As {@link #afterClose(Runnable)}, once {@code alsoAwait} has completed too (same bound). */
    final void afterClose(Mono<Void> alsoAwait, Runnable report) {
        connection.onClose()
                .timeout(CLOSE_WAIT, Mono.empty(), timers.scheduler())
                .then(alsoAwait.timeout(CLOSE_WAIT, Mono.empty(), timers.scheduler()))
                .subscribe(null, e -> report.run(), report);
    }

    @Override
    public final void onClosed(Throwable cause) {
        if (isFinished()) {
            return;
        }
        lost = true;
        if (cause instanceof RdmaFluxException broken) {
            // The peer broke the framing: before its HELLO, it is no rdma-flux peer at all.
            fail(seals.peerHello() != null ? broken : new RdmaFluxException(ErrorCode.VERSION, connection.describe()
                    + " is not an rdma-flux " + peerRole() + " (" + broken.getMessage() + ")"));
            return;
        }
        // A live peer ends with END, END_ACK or ERROR: a bare close means it died or the
        // connection was cut, and the message says so rather than leave the user guessing.
        String why = cause == null
                ? "closed the connection without a word (its process died, or the connection was cut)"
                : "connection failed: " + describe(cause);
        fail(new RdmaFluxException(ErrorCode.TRUNCATED, peerRole() + " " + why + " " + progress()));
    }

    private void tick() {
        if (!isFinished()) {
            guard(this::checkLiveness);
        }
    }

    private void checkLiveness() {
        switch (liveness.due(authenticated)) {
            case HANDSHAKE_TIMEOUT -> fail(new RdmaFluxException(ErrorCode.TIMEOUT, "handshake with "
                    + connection.describe() + " did not complete within " + options.handshakeTimeout().toSeconds() + " s"));
            case IDLE_TIMEOUT -> fail(new RdmaFluxException(ErrorCode.TIMEOUT, "no word from the " + peerRole() + " for "
                    + options.idleTimeout().toSeconds() + " s " + progress()));
            case PING -> send(FrameType.PING, EMPTY);
            case NOTHING -> { }
        }
    }

    static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    /** "sender" or "receiver": the other side, in messages. */
    abstract String peerRole();

    /** A short "after N bytes" note for messages. */
    abstract String progress();

    /** Reports a final failure to the application (called once). */
    abstract void onFailed(RdmaFluxException error);
}
