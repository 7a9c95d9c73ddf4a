package io.rdmaflux.codec;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The shared worker pool of the CPU-bound stages: one daemon thread per core, created on first
 * use. Compression and encryption never block, so they run here rather than on I/O threads;
 * per-thread state (zstd contexts, cipher instances) is bounded by the pool size.
 */
public final class CodecWorkers {

    private static volatile Scheduler scheduler;

    private CodecWorkers() {
    }

    /** Number of cores the JVM sees. */
    public static int defaultParallelism() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** The shared pool. */
    public static Scheduler scheduler() {
        Scheduler s = scheduler;
        if (s == null) {
            synchronized (CodecWorkers.class) {
                s = scheduler;
                if (s == null) {
                    s = Schedulers.newParallel("rdflux-codec", defaultParallelism(), true);
                    scheduler = s;
                }
            }
        }
        return s;
    }
}
