package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@link ChunkFlux#mapOrdered} when demand arrives from a thread other than the one that
 * subscribes each task's result, one element at a time, as a consumer on its own thread
 * (a channel's sender, a file sink) asks. A request that raced the result's subscription
 * could be lost, and the stream stall for good; that race was found by reading Mono.create,
 * and its window is a few instructions wide: this test did not hit it in two million results
 * on the old code. It guards the demand path as a whole.
 */
class MapOrderedDemandTest {

    private static Scheduler workers;
    private static Scheduler consumer;

    @BeforeAll
    static void start() {
        workers = Schedulers.newParallel("map-ordered-test", 2);
        consumer = Schedulers.newSingle("map-ordered-consumer");
    }

    @AfterAll
    static void stop() {
        workers.dispose();
        consumer.dispose();
    }

    @Test
    void demandOneAtATimeFromAnotherThreadNeverStalls() {
        AtomicInteger released = new AtomicInteger();
        for (int round = 0; round < 2000; round++) {
            int n = 50;
            Flux<Chunk> in = Flux.range(0, n).map(i -> Chunk.of(ByteBuffer.allocate(1).put(0, i.byteValue()), released::incrementAndGet));
            Long count = ChunkFlux.mapOrdered(in, c -> c, workers, 2)
                    .publishOn(consumer, 1)
                    .doOnNext(Chunk::release)
                    .count()
                    .block(Duration.ofSeconds(10));
            assertThat(count).as("round %d", round).isEqualTo(n);
        }
        assertThat(released.get()).isEqualTo(2000 * 50);
    }
}
