package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.internal.protocol.FrameSeal;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * A connection that may outlive its stream: the transport delivers its frames here, and they go
 * on to the session of the stream running on it ({@link Lease}). When a stream ends well and both
 * sides offered reuse, the session keeps the connection ({@link Lease#keep}) instead of closing
 * it: it is then idle, keeps its receive ring ({@link FrameConnection#idle()}), and waits for the
 * next stream. What an idle connection does with a frame is its owner's ({@link Idle}): a
 * receiver starts the next stream on a NEXT, a sender's pool takes any frame for a connection
 * gone bad. A connection closed while idle, by the peer or by its keep-alive, is never used again.
 */
final class KeptConnection implements FrameHandler {

    /**
     * What the stream that ended well leaves to the next on the same connection: the peer (its
     * HELLO) and the seals of both directions, whose counters the NEXT frames continue.
     */
    record Continuation(Hello peerHello, FrameSeal outgoing, FrameSeal incoming) {
    }

    /** The owner's part while the connection is idle. */
    interface Idle {
        /** The connection was kept after a stream: it is idle now. */
        void onKept(KeptConnection kept);

        /**
         * A control frame arrived while idle: the session that takes it (already started on a
         * {@link #take()}n lease), or null to close the connection.
         */
        FrameHandler onFrame(KeptConnection kept, FrameType type);

        /** The idle connection closed (either side) and is gone for good. */
        void onGone(KeptConnection kept);
    }

    private final FrameConnection connection;
    private final Idle idle;
    // Guarded by "this".
    private FrameHandler current;
    private boolean started;
    private boolean closed;
    /** Set while idle: what the next stream continues from. */
    private Continuation continuation;
    private Disposable expiry;

    KeptConnection(FrameConnection connection, Idle idle) {
        this.connection = connection;
        this.idle = idle;
    }

    /** The lease for the first stream on this connection, which begins with HELLO. */
    Lease first() {
        return new Lease(null);
    }

    /**
     * Takes the idle connection for the next stream: its lease, whose continuation the session
     * begins from, or null when the connection is not idle (closed meanwhile, or taken).
     */
    synchronized Lease take() {
        if (closed || continuation == null) {
            return null;
        }
        Continuation c = continuation;
        continuation = null;
        if (expiry != null) {
            expiry.dispose();
            expiry = null;
        }
        return new Lease(c);
    }

    /** Closes the connection if it is still idle after {@code after}. */
    synchronized void expireAfter(Duration after) {
        if (expiry != null) {
            expiry.dispose();
        }
        Continuation waiting = continuation;
        expiry = Schedulers.parallel().schedule(() -> {
            synchronized (this) {
                if (continuation != waiting || waiting == null) {
                    return;
                }
            }
            close();
        }, after.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether the connection is idle now. */
    synchronized boolean isIdle() {
        return continuation != null && !closed;
    }

    /** Closes the connection (a stream that failed on it, or an idle one let go). Idempotent. */
    void close() {
        closeIf(false);
    }

    /**
     * Closes the connection only if it is idle now, in one step with {@link #take()}: a stream
     * that has just taken it is never cut. Whether it closed.
     */
    boolean closeIfIdle() {
        return closeIf(true);
    }

    private boolean closeIf(boolean onlyIdle) {
        boolean wasIdle;
        synchronized (this) {
            if (closed || onlyIdle && continuation == null) {
                return false;
            }
            closed = true;
            wasIdle = continuation != null;
            continuation = null;
            if (expiry != null) {
                expiry.dispose();
            }
        }
        try {
            connection.close();
        } finally {
            if (wasIdle) {
                idle.onGone(this);
            }
        }
        return true;
    }

    String describe() {
        return connection.describe();
    }

    private synchronized FrameHandler current() {
        return current;
    }

    @Override
    public void onControlFrame(FrameType type, ByteBuffer payload) {
        FrameHandler h = current();
        if (h == null) {
            h = idle.onFrame(this, type);
            if (h == null) {
                close();
                return;
            }
        }
        h.onControlFrame(type, payload);
    }

    @Override
    public void onDataFrame(Chunk payload) {
        FrameHandler h = current();
        if (h == null) {
            // Not even a transport that let go of its ring delivers DATA now; nothing asked for it.
            payload.releaseQuietly();
            close();
            return;
        }
        h.onDataFrame(payload);
    }

    @Override
    public void onSendSlotFree() {
        FrameHandler h = current();
        if (h != null) {
            h.onSendSlotFree();
        }
    }

    @Override
    public void onClosed(Throwable cause) {
        FrameHandler h = current();
        if (h != null) {
            // The stream's session answers (an ERROR for a framing error) and closes through its lease.
            h.onClosed(cause);
        } else {
            close();
        }
    }

    /**
     * The connection as one stream's session sees it: everything goes to the connection, but
     * the session's handler is attached to this connection's relay, and a stream that ended well
     * may {@link #keep} the connection rather than close it.
     */
    final class Lease implements FrameConnection {

        private final Continuation continuation;
        private final Sinks.Empty<Void> released = Sinks.empty();

        private Lease(Continuation continuation) {
            this.continuation = continuation;
        }

        /** What the stream begins from; null for the first stream, which begins with HELLO. */
        Continuation continuation() {
            return continuation;
        }

        /** The connection this lease is on. */
        KeptConnection kept() {
            return KeptConnection.this;
        }

        /**
         * The stream ended well: the connection goes idle, keeping its receive ring for the next
         * stream, and its owner decides what becomes of it ({@link Idle#onKept}). Whether it went
         * idle (false: it was closed already, or could not idle and closed; then its owner's
         * {@link Idle#onGone} may or may not have run). {@code lastWord} sends the stream's last
         * frame (a receiver's END_ACK) once the connection is idle: a peer that answers it at
         * once with its next stream's NEXT must find the connection idle, not the stream that
         * ended, which drops every frame. It runs whatever becomes of the connection.
         */
        boolean keep(Continuation next, Runnable lastWord) {
            synchronized (KeptConnection.this) {
                if (closed) {
                    lastWord.run();
                    released.tryEmitEmpty();
                    return false;
                }
                current = null;
                KeptConnection.this.continuation = next;
            }
            try {
                if (connection.canIdle()) {
                    connection.idle();
                }
            } catch (RuntimeException e) {
                // A transport shut down meanwhile refuses work: the connection is no use idle.
                lastWord.run();
                close();
                released.tryEmitEmpty();
                return false;
            }
            lastWord.run();
            released.tryEmitEmpty();
            idle.onKept(KeptConnection.this);
            return true;
        }

        @Override
        public void start(FrameHandler handler) {
            boolean first;
            synchronized (KeptConnection.this) {
                current = handler;
                first = !started;
                started = true;
            }
            if (first) {
                connection.start(KeptConnection.this);
            }
        }

        @Override
        public void acceptData() {
            connection.acceptData();
        }

        @Override
        public boolean canIdle() {
            return connection.canIdle();
        }

        @Override
        public void sendControl(FrameType type, ByteBuffer payload) {
            connection.sendControl(type, payload);
        }

        @Override
        public void sendData(Chunk payload) {
            connection.sendData(payload);
        }

        @Override
        public int sendSlots() {
            return connection.sendSlots();
        }

        @Override
        public int receiveSlots() {
            return connection.receiveSlots();
        }

        @Override
        public int maxFramePayload() {
            return connection.maxFramePayload();
        }

        @Override
        public String name() {
            return connection.name();
        }

        @Override
        public String describe() {
            return connection.describe();
        }

        @Override
        public void close() {
            try {
                KeptConnection.this.close();
            } finally {
                released.tryEmitEmpty();
            }
        }

        /** Completes when the stream let go of the connection: kept (at once) or closed (once closed). */
        @Override
        public Mono<Void> onClose() {
            return Mono.firstWithSignal(connection.onClose(), released.asMono().then(Mono.defer(() -> {
                synchronized (KeptConnection.this) {
                    return closed ? connection.onClose() : Mono.<Void>empty();
                }
            })));
        }
    }
}
