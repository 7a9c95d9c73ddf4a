package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lock file its holders remove as they leave: one holder at a time even while takers race
 * with removals (a taker that opened the file just before its holder removed it must not keep a
 * lock on the removed file while another takes the new one), and nothing left at the end.
 */
class LockFileTest {

    @TempDir
    Path dir;

    @Test
    void aSecondTakerFindsItHeldAndTheLastHolderRemovesTheFile() throws Exception {
        Path path = dir.resolve("k.lock");
        LockFile first = LockFile.tryTake(path);
        assertThat(first).isNotNull();
        assertThat(LockFile.tryTake(path)).isNull();
        first.removeAndRelease();
        assertThat(path).doesNotExist();
        LockFile again = LockFile.tryTake(path);
        assertThat(again).as("free again, on a new file").isNotNull();
        again.close();
        assertThat(path).as("close leaves the file").exists();
        again.removeAndRelease();
        assertThat(path).as("released already: not removed (it may be another's by now)").exists();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void takersRacingWithRemovalsNeverHoldItTwoAtOnce() throws Exception {
        Path path = dir.resolve("k.lock");
        int threads = 4;
        int takes = 200;
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    // Until each thread has held it that often: every round races with the others' removals.
                    for (int mine = 0; mine < takes; ) {
                        LockFile lock = LockFile.tryTake(path);
                        if (lock == null) {
                            continue;
                        }
                        mine++;
                        taken.incrementAndGet();
                        most.accumulateAndGet(holders.incrementAndGet(), Math::max);
                        Thread.yield();
                        holders.decrementAndGet();
                        lock.removeAndRelease();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(taken.get()).isEqualTo(threads * takes);
        assertThat(most.get()).as("never two holders at once").isEqualTo(1);
        assertThat(Files.exists(path)).as("the last holder removed it").isFalse();
    }
}
