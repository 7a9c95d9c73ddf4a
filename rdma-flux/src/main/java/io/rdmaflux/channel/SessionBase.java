package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.Authenticator;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.FrameSeal;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.internal.protocol.SessionKeys;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What the sending and receiving ends of a stream share: the connection, the handshake's keys,
 * the sealing of control frames, the liveness timer (heartbeats, idle and handshake timeouts)
 * and the one-way door to a final outcome. Subclasses handle the frames of their role.
 *
 * <p>Every control frame a side sends after its own AUTH is sealed ({@link FrameSeal}); every
 * frame from the peer after the peer's AUTH verified must open, or the stream fails. Before
 * that, only HELLO (first), AUTH, PING and ERROR are taken from the peer, and its ERROR frames
 * may not choose any code but a few ({@link #UNAUTHENTICATED_CODES}).
 */
abstract class SessionBase implements FrameHandler {

    static final Logger log = Loggers.getLogger("io.rdmaflux.engine");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(6);
    /**
     * The codes an unauthenticated peer's ERROR may carry; any other becomes PROTOCOL, so that
     * whoever can reach the port cannot pass off a failure as, say, a checksum mismatch. (One
     * that closes the connection gets TRUNCATED anyway, so TIMEOUT gives nothing away.)
     */
    static final Set<ErrorCode> UNAUTHENTICATED_CODES = EnumSet.of(ErrorCode.PROTOCOL, ErrorCode.VERSION,
            ErrorCode.AUTHENTICATION, ErrorCode.BUSY, ErrorCode.TIMEOUT);

    final FrameConnection connection;
    final ChannelOptions options;
    final Timers timers;
    final byte[] localNonce = Authenticator.newNonce();
    private final Authenticator authenticator;
    private final Hello.Role role;

    private final AtomicBoolean finished = new AtomicBoolean();
    private final long startedAt;
    private volatile long lastHeard;
    private volatile long lastSent;
    private volatile boolean authenticated;
    private Disposable timer;

    /** This side's HELLO payload as sent; set by {@link #begin}. */
    private ByteBuffer localHello;
    /** The peer's HELLO, once it arrived and decoded; on a kept connection, the first stream's. */
    volatile Hello peerHello;
    /** The peer's nonce of this stream: from its HELLO, or from its NEXT on a kept connection. */
    volatile byte[] peerNonce;
    /** The feature bits this side offered in its HELLO (on a kept connection: both offered reuse). */
    private volatile int localFeatures;
    /** The connection was lost (the transport said so), rather than a frame ending the stream. */
    private volatile boolean lost;
    /** The connection's keys, once both HELLOs are known. */
    volatile SessionKeys keys;
    /** Seals what this side sends after its AUTH; guarded by {@link #sendLock}. */
    private FrameSeal outgoing;
    /** Opens what the peer sends after its AUTH; used on the transport's thread only. */
    private volatile FrameSeal incoming;
    /** Sealing counts frames: the counter and the transport's order must agree. */
    private final Object sendLock = new Object();

    SessionBase(FrameConnection connection, byte[] key, ChannelOptions options, Hello.Role role, Timers timers) {
        this.connection = connection;
        this.authenticator = new Authenticator(key);
        this.options = options;
        this.role = role;
        this.timers = timers;
        this.startedAt = timers.now();
        this.lastHeard = startedAt;
        this.lastSent = startedAt;
    }

    /** Starts frame delivery and the liveness timer, then sends this side's HELLO. */
    final void begin(Hello hello) {
        localHello = hello.encode().asReadOnlyBuffer();
        localFeatures = hello.features();
        long period = options.heartbeat().toMillis();
        timer = timers.scheduler().schedulePeriodically(this::tick, period, period, TimeUnit.MILLISECONDS);
        // HELLO goes out before frames are delivered, so no reply to the peer's HELLO can
        // overtake it.
        try {
            send(FrameType.HELLO, localHello.duplicate());
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
        peerHello = previous.peerHello();
        localFeatures = Hello.REUSES;
        synchronized (sendLock) {
            outgoing = previous.outgoing();
        }
        incoming = previous.incoming();
        long period = options.heartbeat().toMillis();
        timer = timers.scheduler().schedulePeriodically(this::tick, period, period, TimeUnit.MILLISECONDS);
        try {
            connection.start(this);
            first.run();
        } catch (RejectedExecutionException e) {
            fail(stopped(e));
        }
    }

    /**
     * Both NEXT nonces are known: every frame this side sends from now on is sealed with the new
     * stream's keys, counters from 0, and every frame from the peer after its NEXT must open with
     * them. The receiver calls this right after its own NEXT, the sender on the receiver's.
     */
    final void rekey(byte[] senderNonce, byte[] receiverNonce) {
        SessionKeys next = authenticator.nextKeys(senderNonce, receiverNonce);
        Hello.Role peer = role == Hello.Role.SENDER ? Hello.Role.RECEIVER : Hello.Role.SENDER;
        keys = next;
        peerNonce = role == Hello.Role.SENDER ? receiverNonce : senderNonce;
        synchronized (sendLock) {
            outgoing = next.seal(role);
        }
        incoming = next.seal(peer);
    }

    /**
     * A receiver's answer to NEXT: its own NEXT, then the new keys, in one step, so that no
     * frame sealed with the old keys (a PING) can follow its NEXT.
     */
    final void answerNext(byte[] senderNonce) {
        synchronized (sendLock) {
            send(FrameType.NEXT, ControlFrames.next(localNonce));
            rekey(senderNonce, localNonce);
        }
    }

    /** Whether both HELLOs offered to keep the connection after a stream that ends well. */
    final boolean reuses() {
        Hello peer = peerHello;
        return peer != null && peer.has(Hello.REUSES) && (localFeatures & Hello.REUSES) != 0;
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
        if (connection instanceof KeptConnection.Lease lease && reuses()) {
            KeptConnection.Continuation next;
            synchronized (sendLock) {
                next = new KeptConnection.Continuation(peerHello, outgoing, incoming);
            }
            return lease.keep(next);
        }
        closeQuietly();
        return false;
    }

    /** The connection {@link #closeOrKeep} will try to keep after a stream that ended well; null if it closes it. */
    final KeptConnection keeps() {
        return connection instanceof KeptConnection.Lease lease && reuses() ? lease.kept() : null;
    }

    /** Queues a control frame, sealed once this side has sent its AUTH. */
    final void send(FrameType type, ByteBuffer payload) {
        synchronized (sendLock) {
            lastSent = timers.now();
            FrameSeal seal = outgoing;
            connection.sendControl(type, seal == null ? payload : seal.seal(type, payload));
        }
    }

    /** Sends this side's AUTH; every frame after it is sealed. */
    final void sendAuth() {
        synchronized (sendLock) {
            send(FrameType.AUTH, ByteBuffer.wrap(keys.proof(role)));
            outgoing = keys.seal(role);
        }
    }

    /**
     * Verifies the peer's AUTH; from the next frame on, the peer's frames must be sealed.
     *
     * @throws RdmaFluxException AUTHENTICATION when the proof does not verify
     */
    final void verifyPeerAuth(byte[] proof) {
        Hello.Role peer = role == Hello.Role.SENDER ? Hello.Role.RECEIVER : Hello.Role.SENDER;
        if (!keys.verify(peer, proof)) {
            throw new RdmaFluxException(ErrorCode.AUTHENTICATION, wrongKey("used"));
        }
        incoming = keys.seal(peer);
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
        if (timer != null) {
            timer.dispose();
        }
        return true;
    }

    /** Data was sent: counts as a sign of life for the peer, so no PING is needed. */
    final void noteSent() {
        lastSent = timers.now();
    }

    @Override
    public final void onControlFrame(FrameType type, ByteBuffer payload) {
        lastHeard = timers.now();
        if (isFinished()) {
            return;
        }
        try {
            if (type != FrameType.METADATA && payload.remaining() > ProtocolVersion.MAX_SMALL_CONTROL_PAYLOAD) {
                // Transports may check this earlier (TCP does, before reading the payload).
                throw new RdmaFluxException(ErrorCode.PROTOCOL, type + " frame of " + payload.remaining()
                        + " bytes is too large");
            }
            FrameSeal seal = incoming;
            if (seal != null) {
                payload = seal.open(type, payload);
            } else if (peerHello == null && type != FrameType.HELLO && type != FrameType.ERROR) {
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
        if (peerHello != null) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "a second HELLO from " + connection.describe());
        }
        ByteBuffer asSent = ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
        Hello hello = Hello.decode(payload);
        if (hello.role() == role) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, connection.describe() + " is an rdma-flux "
                    + (role == Hello.Role.SENDER ? "sender" : "receiver") + " too; a sender connects to a receiver");
        }
        keys = role == Hello.Role.SENDER ? authenticator.keys(localHello, asSent) : authenticator.keys(asSent, localHello);
        peerNonce = hello.nonce();
        peerHello = hello;
        onHello(hello);
    }

    /** Marks the peer alive; for data frames, which bypass {@link #onControlFrame}. */
    final void heard() {
        lastHeard = timers.now();
    }

    /** The peer's HELLO arrived and checked out; {@link #keys} are known. */
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

    /**
     * Ends the session because the peer sent an ERROR frame; an unauthenticated peer's code
     * is kept only if it is one of {@link #UNAUTHENTICATED_CODES}.
     */
    private void failFromPeer(RdmaFluxException peerError, boolean authentic) {
        if (!finish()) {
            return;
        }
        closeQuietly();
        ErrorCode code = peerError.code();
        if (!authentic && !UNAUTHENTICATED_CODES.contains(code)) {
            log.debug("{} sent error code {} before it authenticated; taken as a protocol error",
                    connection.describe(), code);
            code = ErrorCode.PROTOCOL;
        }
        // Our proof refused (unsealed: before the handshake ended). The peer's message names this
        // side as seen from there ("the sender at ..."); here the peer is the one to name.
        String message = code == ErrorCode.AUTHENTICATION && !authentic ? wrongKey("uses")
                : reported(peerRole(), peerError.getMessage());
        onFailed(RdmaFluxException.fromPeer(code, message));
    }

    /** "authentication failed: the receiver at ADDRESS used a different key ...", naming the peer. */
    private String wrongKey(String verb) {
        return "authentication failed: the " + peerRole() + " at " + connection.describe() + " " + verb
                + " a different key (or the handshake was altered on the way)";
    }

    /**
     * "receiver reported: MESSAGE"; once only when the peer relays its own peer's report (a
     * pipeline between two channels), which would otherwise read "receiver reported: receiver
     * reported: ..." once per hop.
     */
    static String reported(String role, String message) {
        String prefix = role + " reported: ";
        return message.startsWith(prefix) ? message : prefix + message;
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
            fail(peerHello != null ? broken : new RdmaFluxException(ErrorCode.VERSION, connection.describe()
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
        // Checked once a heartbeat: a timeout fires at the first tick at or after its deadline.
        long now = timers.now();
        if (!authenticated && now - startedAt >= options.handshakeTimeout().toNanos()) {
            fail(new RdmaFluxException(ErrorCode.TIMEOUT, "handshake with " + connection.describe()
                    + " did not complete within " + options.handshakeTimeout().toSeconds() + " s"));
        } else if (now - lastHeard >= options.idleTimeout().toNanos()) {
            fail(new RdmaFluxException(ErrorCode.TIMEOUT, "no word from the " + peerRole() + " for "
                    + options.idleTimeout().toSeconds() + " s " + progress()));
        } else if (authenticated && now - lastSent >= options.heartbeat().toNanos() / 2) {
            // No PING during the handshake (its own timeout is the clock there): a sender's
            // frames before the receiver's AUTH are then exactly HELLO and AUTH, which is all the
            // RDMA transport posts receives for until it has set up the ring.
            send(FrameType.PING, EMPTY);
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
