package io.rdmaflux.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed-capacity pool of equally sized direct buffers, handed out as {@link Chunk} leases.
 *
 * <p>Buffers are allocated lazily up to {@code capacity} and then reused; the pool never grows
 * past it, so whatever flows through a stage that draws from a pool, its memory is bounded by
 * {@code capacity * bufferSize}. Demand upstream of a pool must therefore never exceed its
 * capacity: {@link #acquire()} throws rather than allocate more, which makes a demand bug loud.
 *
 * <p>{@link #outstanding()} counts leases not yet released; tests use it to prove that nothing
 * leaks on complete, error and cancel.
 *
 * <p>{@link #close()} lets go of the memory: the free buffers at once, each leased one as it is
 * released. The pool then holds no reference to any buffer, so the JVM can reclaim them
 * whatever else (a lingering connection, say) still refers to the pool.
 */
public final class BufferPool {

    private final String name;
    private final int bufferSize;
    private final int capacity;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();
    private final AtomicInteger outstanding = new AtomicInteger();
    /** Buffers ever allocated, trimmed or closed ones included. */
    private final AtomicInteger allocations = new AtomicInteger();
    private volatile boolean closed;

    public BufferPool(String name, int bufferSize, int capacity) {
        if (bufferSize <= 0 || capacity <= 0) {
            throw new IllegalArgumentException("bufferSize and capacity must be positive");
        }
        this.name = name;
        this.bufferSize = bufferSize;
        this.capacity = capacity;
    }

    /**
     * Leases a cleared buffer (position 0, limit {@code bufferSize}).
     *
     * @throws IllegalStateException when all {@code capacity} buffers are leased, or the pool is closed
     */
    public Chunk acquire() {
        if (closed) {
            throw new IllegalStateException("buffer pool '" + name + "' is closed");
        }
        ByteBuffer buffer = free.poll();
        if (buffer == null) {
            if (allocated.incrementAndGet() > capacity) {
                allocated.decrementAndGet();
                throw new IllegalStateException("buffer pool '" + name + "' exhausted: all "
                        + capacity + " buffers are in use (demand exceeded the pool)");
            }
            buffer = ByteBuffer.allocateDirect(bufferSize);
            allocations.incrementAndGet();
        }
        buffer.clear();
        outstanding.incrementAndGet();
        ByteBuffer leased = buffer;
        return Chunk.of(leased, () -> {
            outstanding.decrementAndGet();
            free.offer(leased);
            if (closed) {
                // Closed meanwhile: close() may have drained the queue before this offer.
                drain();
            }
        });
    }

    /**
     * Lets go of every buffer: the free ones now, leased ones as they are released; acquiring
     * fails from now on. Idempotent, from any thread.
     */
    public void close() {
        closed = true;
        drain();
    }

    private void drain() {
        while (free.poll() != null) {
            allocated.decrementAndGet();
        }
    }

    /**
     * Lets go of the free buffers now (leased ones stay leased); later leases allocate again.
     * For a ring whose connection waits idle between streams.
     */
    public void trim() {
        drain();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Size of each buffer in bytes. */
    public int bufferSize() {
        return bufferSize;
    }

    /** Most buffers this pool will ever hold. */
    public int capacity() {
        return capacity;
    }

    /** Leases handed out and not yet released. */
    public int outstanding() {
        return outstanding.get();
    }

    /** Buffers this pool has allocated in its life (a reused buffer counts once); for tests of reuse. */
    public int allocations() {
        return allocations.get();
    }

    /** Bytes of direct memory this pool holds (never more than capacity * bufferSize; after close, only the leased). */
    public long allocatedBytes() {
        return (long) allocated.get() * bufferSize;
    }

    @Override
    public String toString() {
        return "BufferPool[" + name + ", " + bufferSize + " B x " + capacity
                + ", outstanding " + outstanding.get() + "]";
    }
}
