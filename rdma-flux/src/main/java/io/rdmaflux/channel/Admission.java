package io.rdmaflux.channel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The door of one bound receiver, shared by all its transports. Until a peer has authenticated
 * it costs the receiver a little (a connection, a session, a timer), so at most
 * {@code maxUnauthenticated} such peers are held at once and any more are refused at once; each
 * has the handshake timeout to authenticate. A one-stream receiver gives its stream to the
 * first sender that authenticates and refuses every later one.
 */
final class Admission {

    private final int maxUnauthenticated;
    private final boolean oneStream;
    private final AtomicInteger unauthenticated = new AtomicInteger();
    private final AtomicReference<ReceiverSession> stream = new AtomicReference<>();
    private volatile boolean closed;

    Admission(int maxUnauthenticated, boolean oneStream) {
        this.maxUnauthenticated = maxUnauthenticated;
        this.oneStream = oneStream;
    }

    /**
     * Null when a new connection may begin its handshake (it then counts until
     * {@link #handshakeEnded()}); otherwise why it is refused.
     */
    String admit() {
        if (oneStream && stream.get() != null) {
            return "receiver busy: it already serves a stream";
        }
        if (closed) {
            return "receiver busy: it takes no more streams";
        }
        if (unauthenticated.incrementAndGet() > maxUnauthenticated) {
            unauthenticated.decrementAndGet();
            return "receiver busy: " + maxUnauthenticated + " connections are already waiting to authenticate";
        }
        return null;
    }

    /** An admitted connection authenticated or failed; called once for each. */
    void handshakeEnded() {
        unauthenticated.decrementAndGet();
    }

    /**
     * Whether an authenticated session may have its stream: a one-stream receiver's first
     * only, and none once it is closed.
     */
    boolean claim(ReceiverSession session) {
        if (!oneStream) {
            return true;
        }
        // One step with close(): a claim that read "open" must not succeed after close() has
        // looked for a stream to cancel, found none, and left it running unobserved.
        synchronized (this) {
            return !closed && stream.compareAndSet(null, session);
        }
    }

    /** The one stream's session, once a sender has claimed it; null before. */
    ReceiverSession stream() {
        return stream.get();
    }

    /**
     * Connections still in their handshake take no stream from now on.
     *
     * @return the one stream's session if a sender claimed it before, otherwise null
     */
    synchronized ReceiverSession close() {
        closed = true;
        return stream.get();
    }
}
