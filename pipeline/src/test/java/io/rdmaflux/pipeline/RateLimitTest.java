package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** --bwlimit's pacing, on a virtual clock: when each chunk leaves, and that held chunks are released. */
class RateLimitTest {

    private static Chunk chunk(int size) {
        return Chunk.wrap(ByteBuffer.allocate(size));
    }

    @Test
    void chunksLeaveNoFasterThanTheRate() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        List<Long> leftAt = new CopyOnWriteArrayList<>();
        // 4 chunks of 1000 bytes at 1000 B/s: at 0, 1, 2 and 3 s.
        StepVerifier.withVirtualTime(() -> RateLimit.of(1000, clock).apply(Flux.range(0, 4).map(i -> chunk(1000)))
                        .doOnNext(c -> leftAt.add(clock.now(TimeUnit.MILLISECONDS))), () -> clock, Long.MAX_VALUE)
                .expectSubscription()
                .expectNextCount(1)
                .expectNoEvent(Duration.ofMillis(999))
                .thenAwait(Duration.ofMillis(1))
                .expectNextCount(1)
                .thenAwait(Duration.ofSeconds(2))
                .expectNextCount(2)
                .verifyComplete();
        assertThat(leftAt).containsExactly(0L, 1000L, 2000L, 3000L);
    }

    @Test
    void aSmallerChunkWaitsLess() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        List<Long> leftAt = new CopyOnWriteArrayList<>();
        // 2 MiB/s: a 1 MiB chunk then a 512 KiB one then another: at 0, 500 and 750 ms.
        StepVerifier.withVirtualTime(() -> RateLimit.of(2 << 20, clock)
                        .apply(Flux.just(1 << 20, 512 << 10, 512 << 10).map(RateLimitTest::chunk))
                        .doOnNext(c -> leftAt.add(clock.now(TimeUnit.MILLISECONDS))), () -> clock, Long.MAX_VALUE)
                .thenAwait(Duration.ofSeconds(5))
                .expectNextCount(3)
                .verifyComplete();
        assertThat(leftAt).containsExactly(0L, 500L, 750L);
    }

    @Test
    void aCancelledStreamReleasesTheChunkItHolds() {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        List<Chunk> made = new CopyOnWriteArrayList<>();
        StepVerifier.withVirtualTime(() -> RateLimit.of(100, clock).apply(Flux.range(0, 3).map(i -> {
                    Chunk c = chunk(100);
                    made.add(c);
                    return c;
                })), () -> clock, Long.MAX_VALUE)
                .expectNextCount(1)
                .thenCancel()
                .verify();
        assertThat(made.subList(1, made.size())).allMatch(Chunk::isReleased);
    }

    @Test
    void theRateMustBePositive() {
        assertThatThrownBy(() -> RateLimit.of(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
