package io.rdmaflux.channel;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.text.Plural;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receive memory a receiver lets its streams hold together. Each authenticated stream
 * reserves its whole receive ring (frame size x receive slots: what its sender's credits let
 * arrive, on TCP and RDMA alike) before the transport may fill it, and gives it back when the
 * stream ends; a stream that would go over the limit is refused instead. So a receiver never
 * asks the JVM for more direct memory than its budget, whatever its senders do.
 */
final class MemoryBudget {

    private final long limit;
    private final long perStream;
    private final AtomicLong reserved = new AtomicLong();

    MemoryBudget(long limit, long perStream) {
        this.limit = limit;
        this.perStream = perStream;
    }

    /** No limit: every stream gets its memory (for tests of other things). */
    static MemoryBudget unlimited() {
        return new MemoryBudget(Long.MAX_VALUE, 0);
    }

    /**
     * The budget a receiver gets when none is set: half the JVM's direct memory limit (the
     * rest is for senders' buffers, codecs and the transports' own), but at least one stream's
     * ring, so that a receiver with default settings always takes one stream.
     */
    static long defaultLimit(long perStream) {
        return Math.max(DirectMemory.limit() / 2, perStream);
    }

    /** Reserves one stream's ring; false, reserving nothing, when it would exceed the limit. */
    boolean tryReserve() {
        long now;
        do {
            now = reserved.get();
            if (now + perStream > limit) {
                return false;
            }
        } while (!reserved.compareAndSet(now, now + perStream));
        return true;
    }

    /** Gives back one stream's reservation. */
    void release() {
        reserved.addAndGet(-perStream);
    }

    /** Why a stream is refused, naming the budget and how to change it. */
    String refusal() {
        return "receiver busy: its memory budget for streams (" + DirectMemory.format(limit) + ") is taken by "
                + Plural.count(limit / perStream, "stream") + " of " + DirectMemory.format(perStream)
                + " each (frame size x receive slots); retry later, or raise the receiver's memory budget";
    }

    /** Bytes reserved now; for tests. */
    long reserved() {
        return reserved.get();
    }
}
