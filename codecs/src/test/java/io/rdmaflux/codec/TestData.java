package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;

/** Seeded test inputs, chunk sources that count their live leases, and helpers. */
final class TestData {

    private TestData() {
    }

    /** Text-like bytes that compress well. */
    static byte[] compressible(Random r, int n) {
        String[] words = {"stream", "chunk", "lease", "frame", "credit", "zstd", "cipher", "record", "the", "of",
                "rdma", "flux", "buffer", "receiver", "sender", "\n"};
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 16);
        while (out.size() < n) {
            byte[] w = (words[r.nextInt(words.length)] + ' ').getBytes(StandardCharsets.US_ASCII);
            out.write(w, 0, w.length);
        }
        byte[] b = out.toByteArray();
        byte[] exact = new byte[n];
        System.arraycopy(b, 0, exact, 0, n);
        return exact;
    }

    static byte[] random(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** Counts leases handed out by a source and not yet released. */
    static final class Tracker {
        final AtomicInteger live = new AtomicInteger();
        final AtomicInteger created = new AtomicInteger();

        Chunk track(ByteBuffer b) {
            live.incrementAndGet();
            created.incrementAndGet();
            return Chunk.of(b, live::decrementAndGet);
        }

        /** The bytes cut into chunks of {@code size}, each a counted lease (direct or heap alternately). */
        Flux<Chunk> source(byte[] data, int size) {
            return Flux.defer(() -> {
                List<int[]> cuts = new ArrayList<>();
                for (int off = 0; off < data.length; off += size) {
                    cuts.add(new int[] {off, Math.min(size, data.length - off)});
                }
                return Flux.fromIterable(cuts).map(c -> {
                    ByteBuffer b = (c[0] / size) % 2 == 0 ? ByteBuffer.allocateDirect(c[1]) : ByteBuffer.allocate(c[1]);
                    b.put(data, c[0], c[1]).flip();
                    return track(b);
                });
            });
        }
    }

    /** Appends a chunk's bytes to {@code out} and releases it. */
    static void append(ByteArrayOutputStream out, Chunk c) {
        try {
            ByteBuffer b = c.buffer().duplicate();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.write(a, 0, a.length);
        } finally {
            c.release();
        }
    }

    /** Collects the bytes of chunks, releasing each. */
    static byte[] drain(List<Chunk> chunks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        chunks.forEach(c -> append(out, c));
        return out.toByteArray();
    }

    /** Collects a whole Flux into bytes, releasing each chunk as it arrives. */
    static byte[] collect(Flux<Chunk> f) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.doOnNext(c -> append(out, c)).transform(TestData::dumpThreadsOnTimeout)
                .blockLast(Duration.ofSeconds(60));
        return out.toByteArray();
    }

    /** On a stall, the threads' stacks go to stdout (the surefire report) before the timeout is thrown. */
    private static Flux<Chunk> dumpThreadsOnTimeout(Flux<Chunk> f) {
        return f.timeout(Duration.ofSeconds(55), Flux.defer(() -> {
            StringBuilder b = new StringBuilder("stalled for 55 s; threads:\n");
            Thread.getAllStackTraces().forEach((t, stack) -> {
                b.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                    b.append("    at ").append(e).append('\n');
                }
            });
            System.out.println(b);
            return Flux.error(new IllegalStateException("stalled: no signal for 55 s (threads dumped to stdout)"));
        }));
    }

    /** Re-cuts bytes at random positions, as a channel with small frames might. */
    static Flux<Chunk> recut(byte[] data, Random r, int maxPiece, Tracker t) {
        List<int[]> cuts = new ArrayList<>();
        int off = 0;
        while (off < data.length) {
            int n = Math.min(data.length - off, 1 + r.nextInt(maxPiece));
            cuts.add(new int[] {off, n});
            off += n;
        }
        return Flux.fromIterable(cuts).map(c -> {
            ByteBuffer b = ByteBuffer.allocateDirect(c[1]);
            b.put(data, c[0], c[1]).flip();
            return t.track(b);
        });
    }

    /** Waits until a counter reaches zero (workers release asynchronously after cancel). */
    static void awaitZero(java.util.function.IntSupplier counter, String what) {
        io.rdmaflux.channel.TestData.awaitZero(counter, what + ": leases never released");
    }

    /**
     * Recycles buffers eagerly and overwrites each one with 0xEE when it is released, so that
     * anyone who reads a buffer after releasing it sees garbage at once instead of by chance.
     */
    static final class PoisonAllocator implements ChunkAllocator {
        private final java.util.concurrent.ConcurrentLinkedQueue<ByteBuffer> free = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final AtomicInteger outstanding = new AtomicInteger();
        static final int SIZE = 2 << 20;

        @Override
        public Chunk allocate(int size) {
            if (size > SIZE) {
                throw new IllegalArgumentException("too big for the poison allocator: " + size);
            }
            ByteBuffer b = free.poll();
            if (b == null) {
                b = ByteBuffer.allocateDirect(SIZE);
            }
            b.clear().limit(size);
            outstanding.incrementAndGet();
            ByteBuffer leased = b;
            return Chunk.of(leased, () -> {
                ByteBuffer all = leased.duplicate().clear();
                while (all.hasRemaining()) {
                    all.put((byte) 0xEE);
                }
                outstanding.decrementAndGet();
                free.offer(leased);
            });
        }

        @Override
        public int outstanding() {
            return outstanding.get();
        }
    }
}
