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
 */
public final class BufferPool {

    private final String name;
    private final int bufferSize;
    private final int capacity;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();
    private final AtomicInteger outstanding = new AtomicInteger();

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
     * @throws IllegalStateException when all {@code capacity} buffers are leased
     */
    public Chunk acquire() {
        ByteBuffer buffer = free.poll();
        if (buffer == null) {
            if (allocated.incrementAndGet() > capacity) {
                allocated.decrementAndGet();
                throw new IllegalStateException("buffer pool '" + name + "' exhausted: all "
                        + capacity + " buffers are in use (demand exceeded the pool)");
            }
            buffer = ByteBuffer.allocateDirect(bufferSize);
        }
        buffer.clear();
        outstanding.incrementAndGet();
        ByteBuffer leased = buffer;
        return Chunk.of(leased, () -> {
            outstanding.decrementAndGet();
            free.offer(leased);
        });
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

    /** Bytes of direct memory allocated so far (never more than capacity * bufferSize). */
    public long allocatedBytes() {
        return (long) allocated.get() * bufferSize;
    }

    @Override
    public String toString() {
        return "BufferPool[" + name + ", " + bufferSize + " B x " + capacity
                + ", outstanding " + outstanding.get() + "]";
    }
}
