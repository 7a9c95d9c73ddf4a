package io.rdmaflux.connector;

import io.rdmaflux.buffer.BufferPool;
import java.util.Objects;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * How a source reads. Immutable; each {@code withX} returns a copy.
 *
 * <p><b>Memory bound.</b> One subscription to a source holds at most {@code buffers} chunks of
 * {@code chunkSize} bytes at any time: the ones its subscriber holds plus the one being read.
 * A source reads only when its subscriber has asked for a chunk <em>and</em> a buffer is free,
 * so a subscriber that holds chunks stalls the reads instead of growing memory. The defaults
 * (1 MiB x 16 = 16 MiB) let the channel keep all its default 16 send slots busy; fewer buffers
 * limit throughput, never correctness.
 *
 * @param chunkSize bytes per read and per chunk; default 1 MiB (the channel's frame size)
 * @param buffers   most chunks alive at once per subscription; default 16
 * @param scheduler where the blocking reads run; default {@code Schedulers.boundedElastic()}
 * @param pool      a pool to read into instead of a fresh one per subscription (for example
 *                  registered memory), or null; when set, its buffer size is the chunk size and
 *                  at most {@code min(buffers, pool.capacity())} of its buffers are used. A
 *                  shared pool must have room for every concurrent user.
 */
public record SourceOptions(int chunkSize, int buffers, Scheduler scheduler, BufferPool pool) {

    /** The defaults described above. */
    public static SourceOptions defaults() {
        return new SourceOptions(1 << 20, 16, Schedulers.boundedElastic(), null);
    }

    public SourceOptions {
        if (chunkSize <= 0 || buffers <= 0) {
            throw new IllegalArgumentException("chunkSize and buffers must be positive");
        }
        Objects.requireNonNull(scheduler, "scheduler");
    }

    public SourceOptions withChunkSize(int v) {
        return new SourceOptions(v, buffers, scheduler, pool);
    }

    public SourceOptions withBuffers(int v) {
        return new SourceOptions(chunkSize, v, scheduler, pool);
    }

    public SourceOptions withScheduler(Scheduler v) {
        return new SourceOptions(chunkSize, buffers, v, pool);
    }

    /** Reads into {@code v}; the chunk size becomes its buffer size. */
    public SourceOptions withPool(BufferPool v) {
        return new SourceOptions(v == null ? chunkSize : v.bufferSize(), buffers, scheduler, v);
    }

    /** The number of pool buffers one subscription may hold: {@code buffers}, capped by the pool's capacity. */
    public int permits() {
        return pool == null ? buffers : Math.min(buffers, pool.capacity());
    }
}
