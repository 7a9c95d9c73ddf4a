package io.rdmaflux.channel;

import io.rdmaflux.text.Plural;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The door of one bound receiver, shared by all its transports. Until a peer has authenticated
 * it costs the receiver a little (a connection, a session, a timer), so at most
 * {@code maxUnauthenticated} such peers are held at once, each for at most the handshake
 * timeout. When all places are taken, a newcomer takes the place of the peer that has waited
 * longest, which is refused (BUSY): idle strangers cannot keep a sender out by holding the
 * places, only a flood that fills every place faster than a sender can authenticate (a round
 * trip) can. A one-stream receiver gives its stream to the first sender that authenticates and
 * refuses every later one. An authenticated stream also needs its receive ring from the
 * receiver's {@link MemoryBudget}; without room it is refused (BUSY) before its ring is used.
 * A connection kept idle after its stream keeps that stream's claim (its ring stays for the next
 * stream), and the next stream on it takes the claim over; a stream that finds the budget
 * taken first has the receiver close idle kept connections, oldest first, for their claims.
 */
final class Admission {

    private final int maxUnauthenticated;
    private final boolean oneStream;
    private final MemoryBudget memory;
    /**
     * Sessions, and idle {@link KeptConnection}s, holding a reservation of {@link #memory};
     * each gives it back once.
     */
    private final java.util.Set<Object> holding = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Closes the oldest idle kept connection (which gives its claim back); false when none is left. */
    private volatile BooleanSupplier closeOldestIdle = () -> false;
    private final AtomicInteger unauthenticated = new AtomicInteger();
    private final AtomicReference<ReceiverSession> stream = new AtomicReference<>();
    /** Sessions in their handshake, the longest waiting first. */
    private final Queue<ReceiverSession> waiting = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    private static final String ONE_STREAM_TAKEN = "receiver busy: it already serves a stream";

    /** An admission without a memory budget (tests of the handshake). */
    Admission(int maxUnauthenticated, boolean oneStream) {
        this(maxUnauthenticated, oneStream, MemoryBudget.unlimited());
    }

    Admission(int maxUnauthenticated, boolean oneStream, MemoryBudget memory) {
        this.maxUnauthenticated = maxUnauthenticated;
        this.oneStream = oneStream;
        this.memory = memory;
    }

    /**
     * Null when a new connection may begin its handshake (it then counts until
     * {@link #handshakeEnded}), after displacing the longest waiting one if all places are
     * taken; otherwise why it is refused.
     */
    String admit() {
        if (oneStream && stream.get() != null) {
            return "receiver busy: it already serves a stream";
        }
        if (closed) {
            return "receiver busy: it takes no more streams";
        }
        while (unauthenticated.incrementAndGet() > maxUnauthenticated) {
            unauthenticated.decrementAndGet();
            ReceiverSession oldest = waiting.poll();
            if (oldest == null) {
                // Every place is taken by a connection not yet waiting (being set up right now).
                return "receiver busy: " + Plural.count(maxUnauthenticated, "connection")
                        + (maxUnauthenticated == 1 ? " is" : " are") + " already waiting to authenticate";
            }
            // Its failure ends its handshake, which gives the place back (handshakeEnded).
            oldest.displace();
        }
        return null;
    }

    /** An admitted session has begun its handshake. */
    void waiting(ReceiverSession session) {
        waiting.add(session);
    }

    /** An admitted session authenticated or failed; called once for each. */
    void handshakeEnded(ReceiverSession session) {
        waiting.remove(session);
        unauthenticated.decrementAndGet();
    }

    /**
     * Null when an authenticated session may have its stream: a one-stream receiver's first
     * only, none once it is closed, and only with room in the memory budget, which it then
     * holds until {@link #streamEnded}; otherwise why it is refused.
     */
    String claim(ReceiverSession session) {
        if (oneStream && (closed || stream.get() != null)) {
            return ONE_STREAM_TAKEN;
        }
        if (!reserve()) {
            return memory.refusal();
        }
        holding.add(session);
        String refusal = oneStream ? takeTheStream(session) : null;
        // A session failed meanwhile on another thread (a timeout, a cancel) may have called
        // streamEnded before the add above: then the reservation goes back here (once).
        if (refusal != null || session.isFinished()) {
            streamEnded(session);
        }
        return refusal;
    }

    /** One stream's reservation, closing idle kept connections for theirs while it does not fit. */
    private boolean reserve() {
        while (!memory.tryReserve()) {
            if (!closeOldestIdle.getAsBoolean()) {
                return false;
            }
        }
        return true;
    }

    /** Where {@link #claim} finds idle kept connections to close when the budget is taken. */
    void closeIdleWith(BooleanSupplier closeOldestIdle) {
        this.closeOldestIdle = closeOldestIdle;
    }

    /**
     * A stream ended well. If it keeps its connection ({@code kept} not null), the claim goes
     * from the session to the connection, whose ring stays: before the connection is idle, so
     * that its next stream finds it. Otherwise the claim goes back ({@link #streamEnded}).
     */
    void keepOrEnd(ReceiverSession session, KeptConnection kept) {
        if (kept == null) {
            streamEnded(session);
        } else if (holding.remove(session)) {
            holding.add(kept);
        }
    }

    /**
     * The next stream on a kept connection takes over the connection's claim, if it still has
     * one; it then needs none of its own ({@link #holds}).
     */
    void takeOver(KeptConnection kept, ReceiverSession session) {
        if (holding.remove(kept)) {
            holding.add(session);
        }
    }

    /** Whether {@code session} holds a claim now (one it took over from its kept connection). */
    boolean holds(ReceiverSession session) {
        return holding.contains(session);
    }

    /** The kept connection closed (idle, or never idle after all): its claim, if any, goes back. */
    void connectionGone(KeptConnection kept) {
        if (holding.remove(kept)) {
            memory.release();
        }
    }

    private String takeTheStream(ReceiverSession session) {
        // One step with close(): a claim that read "open" must not succeed after close() has
        // looked for a stream to cancel, found none, and left it running unobserved.
        synchronized (this) {
            return !closed && stream.compareAndSet(null, session) ? null : ONE_STREAM_TAKEN;
        }
    }

    /** A session's stream ended (or never began): its memory reservation, if any, goes back. */
    void streamEnded(ReceiverSession session) {
        if (holding.remove(session)) {
            memory.release();
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
