package io.rdmaflux.channel;

import io.rdmaflux.protocol.Authenticator;
import io.rdmaflux.protocol.ControlFrames;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What the sending and receiving ends of a stream share: the connection, the shared key, the
 * liveness timer (heartbeats, idle and handshake timeouts) and the one-way door to a final
 * outcome. Subclasses handle the frames of their role.
 */
abstract class SessionBase implements FrameHandler {

    static final Logger log = Loggers.getLogger("io.rdmaflux.engine");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(6);

    final FrameConnection connection;
    final Authenticator authenticator;
    final ChannelOptions options;
    final byte[] localNonce = Authenticator.newNonce();

    private final AtomicBoolean finished = new AtomicBoolean();
    private final long startedAt = System.nanoTime();
    private volatile long lastHeard = System.nanoTime();
    private volatile long lastSent = System.nanoTime();
    private volatile boolean authenticated;
    private Disposable timer;

    SessionBase(FrameConnection connection, byte[] key, ChannelOptions options) {
        this.connection = connection;
        this.authenticator = new Authenticator(key);
        this.options = options;
    }

    /** Starts frame delivery and the liveness timer, then sends this side's HELLO. */
    final void begin(ByteBuffer hello) {
        long period = options.heartbeat().toMillis();
        timer = Schedulers.parallel().schedulePeriodically(this::tick, period, period, TimeUnit.MILLISECONDS);
        // HELLO goes out before frames are delivered, so no reply to the peer's HELLO can
        // overtake it.
        send(FrameType.HELLO, hello);
        connection.start(this);
    }

    final void send(FrameType type, ByteBuffer payload) {
        lastSent = System.nanoTime();
        connection.sendControl(type, payload);
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
        lastSent = System.nanoTime();
    }

    @Override
    public final void onControlFrame(FrameType type, ByteBuffer payload) {
        lastHeard = System.nanoTime();
        if (isFinished()) {
            return;
        }
        try {
            switch (type) {
                case PING -> { }
                case ERROR -> failFromPeer(ControlFrames.decodeError(payload));
                default -> onControl(type, payload);
            }
        } catch (ProtocolException e) {
            fail(e);
        } catch (RuntimeException e) {
            fail(ProtocolException.wrap(e, ErrorCode.INTERNAL));
        }
    }

    /** Marks the peer alive; for data frames, which bypass {@link #onControlFrame}. */
    final void heard() {
        lastHeard = System.nanoTime();
    }

    /** Handles every control frame but PING and ERROR. */
    abstract void onControl(FrameType type, ByteBuffer payload);

    /**
     * Ends the session with a local failure: tells the peer why (one ERROR frame), closes the
     * connection and reports the failure to the application.
     */
    final void fail(ProtocolException error) {
        if (!finish()) {
            return;
        }
        log.debug("stream failed locally: {}", error.getMessage());
        try {
            connection.sendControl(FrameType.ERROR, ControlFrames.error(error.code(), error.getMessage()));
        } finally {
            connection.close();
            onFailed(error);
        }
    }

    /** Ends the session because the peer sent an ERROR frame. */
    final void failFromPeer(ProtocolException peerError) {
        if (!finish()) {
            return;
        }
        connection.close();
        onFailed(new ProtocolException(peerError.code(), peerRole() + " reported: " + peerError.getMessage()));
    }

    /** Ends the session successfully and closes the connection after what is queued. */
    final boolean succeed() {
        if (!finish()) {
            return false;
        }
        connection.close();
        return true;
    }

    /**
     * Runs {@code report} once the connection has closed (bounded by {@link #CLOSE_WAIT}), so
     * that the application learns the outcome only after our last frame has left: a tool that
     * exits on the outcome would otherwise cut off its own END_ACK or ERROR.
     */
    final void afterClose(Runnable report) {
        connection.onClose()
                .timeout(CLOSE_WAIT, Mono.empty())
                .subscribe(null, e -> report.run(), report);
    }

    @Override
    public final void onClosed(Throwable cause) {
        if (isFinished()) {
            return;
        }
        String why = cause == null ? "closed the connection" : "connection failed: " + describe(cause);
        fail(new ProtocolException(ErrorCode.TRUNCATED, peerRole() + " " + why + " " + progress()));
    }

    private void tick() {
        if (isFinished()) {
            return;
        }
        long now = System.nanoTime();
        if (!authenticated && now - startedAt > options.handshakeTimeout().toNanos()) {
            fail(new ProtocolException(ErrorCode.TIMEOUT, "handshake with " + connection.describe()
                    + " did not complete within " + options.handshakeTimeout().toSeconds() + " s"));
        } else if (now - lastHeard > options.idleTimeout().toNanos()) {
            fail(new ProtocolException(ErrorCode.TIMEOUT, "no word from the " + peerRole() + " for "
                    + options.idleTimeout().toSeconds() + " s " + progress()));
        } else if (now - lastSent >= options.heartbeat().toNanos() / 2) {
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
    abstract void onFailed(ProtocolException error);
}
