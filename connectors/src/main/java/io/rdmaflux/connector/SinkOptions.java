package io.rdmaflux.connector;

import java.util.Objects;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * How a sink writes. Immutable; each {@code withX} returns a copy.
 *
 * <p><b>Memory bound.</b> A sink requests {@code prefetch} chunks ahead of its writes and one
 * more per chunk written, so it never holds more than {@code prefetch} chunks. It allocates no
 * buffers of its own: the chunks are the channel's receive slots, and the ones the sink has
 * not requested yet wait in the channel's ring, which bounds the rest.
 *
 * @param prefetch  chunks requested ahead of the writes; default 4
 * @param fsync     whether a file sink syncs the file (and its directory) before reporting
 *                  success; default false, as {@code cp} does
 * @param scheduler where the blocking writes run; default {@code Schedulers.boundedElastic()}
 */
public record SinkOptions(int prefetch, boolean fsync, Scheduler scheduler) {

    /** The defaults described above. */
    public static SinkOptions defaults() {
        return new SinkOptions(4, false, Schedulers.boundedElastic());
    }

    public SinkOptions {
        if (prefetch <= 0) {
            throw new IllegalArgumentException("prefetch must be positive");
        }
        Objects.requireNonNull(scheduler, "scheduler");
    }

    public SinkOptions withPrefetch(int v) {
        return new SinkOptions(v, fsync, scheduler);
    }

    public SinkOptions withFsync(boolean v) {
        return new SinkOptions(prefetch, v, scheduler);
    }

    public SinkOptions withScheduler(Scheduler v) {
        return new SinkOptions(prefetch, fsync, v);
    }
}
