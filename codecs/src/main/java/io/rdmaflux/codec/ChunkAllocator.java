package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gives codec stages their output buffers as {@link Chunk} leases.
 *
 * <p>The {@link #pooled()} allocator recycles direct buffers by size class (a power of two up
 * to 256 KiB, then multiples of 256 KiB) and keeps free ones up to 64 MiB in all; it does not
 * cap how many are leased, because memory is bounded by demand: each stage works on at most
 * {@code parallelism} chunks and keeps a small, fixed prefetch. {@link #outstanding()} counts
 * leases not yet released, which the leak tests check.
 */
public interface ChunkAllocator {

    /** A lease on a buffer with position 0 and limit {@code size} (its capacity may be larger). */
    Chunk allocate(int size);

    /** Leases handed out and not yet released. */
    int outstanding();

    /** The process-wide recycling allocator of direct buffers. */
    static ChunkAllocator pooled() {
        return Pooled.INSTANCE;
    }

    /** An allocator of heap buffers that are left to the garbage collector on release. */
    static ChunkAllocator heap() {
        return Heap.INSTANCE;
    }

    /** Recycling direct buffers; see the interface description. */
    final class Pooled implements ChunkAllocator {
        static final Pooled INSTANCE = new Pooled(16);
        private static final long KEEP_BYTES = 64L << 20;

        private final int keepPerClass;
        private final java.util.concurrent.atomic.AtomicLong kept = new java.util.concurrent.atomic.AtomicLong();
        private final ConcurrentHashMap<Integer, ConcurrentLinkedQueue<ByteBuffer>> free = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<Integer, AtomicInteger> freeCounts = new ConcurrentHashMap<>();
        private final AtomicInteger outstanding = new AtomicInteger();

        Pooled(int keepPerClass) {
            this.keepPerClass = keepPerClass;
        }

        static int sizeClass(int size) {
            if (size <= 256 * 1024) {
                return Math.max(256, Integer.highestOneBit(Math.max(1, size - 1)) << 1);
            }
            return (size + 0x3FFFF) & ~0x3FFFF;
        }

        @Override
        public Chunk allocate(int size) {
            if (size < 0) {
                throw new IllegalArgumentException("negative size");
            }
            int cls = sizeClass(size);
            ConcurrentLinkedQueue<ByteBuffer> q = free.computeIfAbsent(cls, k -> new ConcurrentLinkedQueue<>());
            AtomicInteger count = freeCounts.computeIfAbsent(cls, k -> new AtomicInteger());
            ByteBuffer b = q.poll();
            if (b != null) {
                count.decrementAndGet();
                kept.addAndGet(-cls);
            } else {
                b = ByteBuffer.allocateDirect(cls);
            }
            b.clear().limit(size);
            outstanding.incrementAndGet();
            ByteBuffer leased = b;
            return Chunk.of(leased, () -> {
                outstanding.decrementAndGet();
                if (count.incrementAndGet() > keepPerClass) {
                    count.decrementAndGet();
                    return;
                }
                if (kept.addAndGet(cls) > KEEP_BYTES) {
                    kept.addAndGet(-cls);
                    count.decrementAndGet();
                    return;
                }
                q.offer(leased);
            });
        }

        @Override
        public int outstanding() {
            return outstanding.get();
        }
    }

    /** Heap buffers, counted. */
    final class Heap implements ChunkAllocator {
        static final Heap INSTANCE = new Heap();
        private final AtomicInteger outstanding = new AtomicInteger();

        @Override
        public Chunk allocate(int size) {
            outstanding.incrementAndGet();
            return Chunk.of(ByteBuffer.allocate(size), outstanding::decrementAndGet);
        }

        @Override
        public int outstanding() {
            return outstanding.get();
        }
    }
}
