package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Caps the data rate of a stream of chunks (rdcp's {@code --bwlimit}, as rsync's): each chunk
 * leaves no earlier than the bytes before it allow at the rate, so that over any stretch of the
 * stream the average stays at or below it; a chunk is never split, so the first one, and one
 * after a pause of the reader, leaves at once. The clock is the scheduler's, which a test can
 * make virtual. Chunks held back are released if the stream is cancelled.
 */
public final class RateLimit {

    private final long bytesPerSecond;
    private final Scheduler scheduler;

    private RateLimit(long bytesPerSecond, Scheduler scheduler) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("the rate must be positive, was " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.scheduler = scheduler;
    }

    /** A limit of {@code bytesPerSecond}, its delays on the parallel scheduler. */
    public static RateLimit of(long bytesPerSecond) {
        return new RateLimit(bytesPerSecond, Schedulers.parallel());
    }

    /** A limit whose clock and delays are {@code scheduler}'s (a virtual-time one in tests). */
    public static RateLimit of(long bytesPerSecond, Scheduler scheduler) {
        return new RateLimit(bytesPerSecond, java.util.Objects.requireNonNull(scheduler, "scheduler"));
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** {@code chunks}, paced: one at a time, each when the rate allows. */
    public Flux<Chunk> apply(Flux<Chunk> chunks) {
        return Flux.defer(() -> {
            // When the next chunk may leave, in the scheduler's nanoseconds; per subscription.
            long[] next = {Long.MIN_VALUE};
            return chunks.concatMap(c -> {
                long now = scheduler.now(TimeUnit.NANOSECONDS);
                long at = Math.max(next[0], now);
                next[0] = at + nanosFor(c.remaining());
                return at <= now ? Mono.just(c) : Mono.delay(Duration.ofNanos(at - now), scheduler).thenReturn(c)
                        .doOnCancel(c::releaseQuietly);
            }, 1).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
        });
    }

    /** How long {@code bytes} take at the rate. */
    long nanosFor(long bytes) {
        return (long) (bytes * 1e9 / bytesPerSecond);
    }

    @Override
    public String toString() {
        return "RateLimit[" + bytesPerSecond + " B/s]";
    }
}
