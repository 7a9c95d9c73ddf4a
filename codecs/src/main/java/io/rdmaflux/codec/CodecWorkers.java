package io.rdmaflux.codec;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The shared worker pool of the CPU-bound stages: one daemon thread per core, created on first
 * use. Compression and encryption never block, so they run here rather than on I/O threads.
 *
 * <p><b>Why one pool per JVM</b>, as Reactor's {@code Schedulers.parallel()}: every stream's
 * stages share the cores, so several streams at once do not run more CPU-bound threads than
 * there are cores, and the per-thread native state of the stages (zstd contexts, cipher
 * contexts) stays bounded by the pool size. Its threads are daemons: it never keeps a JVM
 * alive, and a tool needs no shutdown.
 *
 * <p><b>Lifecycle.</b> A service that must stop the threads (an application being undeployed)
 * calls {@link #shutdown()}; streams still running then fail, and the next stream starts a new
 * pool. A service that wants its own pool passes it with {@link CodecContext#withScheduler}
 * and disposes of it itself.
 */
public final class CodecWorkers {

    private static Scheduler scheduler;

    private CodecWorkers() {
    }

    /** Number of cores the JVM sees. */
    public static int defaultParallelism() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** The shared pool, started if need be. */
    public static synchronized Scheduler scheduler() {
        if (scheduler == null || scheduler.isDisposed()) {
            scheduler = Schedulers.newParallel("rdflux-codec", defaultParallelism(), true);
        }
        return scheduler;
    }

    /** Stops the shared pool's threads, if it was started; a later {@link #scheduler()} starts a new one. */
    public static synchronized void shutdown() {
        if (scheduler != null) {
            scheduler.dispose();
            scheduler = null;
        }
    }
}
