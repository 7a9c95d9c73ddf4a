package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.test.util.RaceTestUtils;

/**
 * The read-ahead rules without files or threads: the scheduler is a list, so each test says
 * exactly which task runs when. The race tests use real threads for the two lost-wakeup cases.
 */
class ReadPermitsTest {

    private final List<Runnable> ran = new ArrayList<>();
    private final Runnable a = named("a");
    private final Runnable b = named("b");
    private final Runnable c = named("c");

    private static Runnable named(String name) {
        return new Runnable() {
            @Override
            public void run() {
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @Test
    void grantsAsManyPermitsAsItHasThenQueuesAndWakesInOrder() {
        ReadPermits p = new ReadPermits(2, ran::add);
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.GRANTED);
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.GRANTED);
        assertThat(p.take(b)).isEqualTo(ReadPermits.Grant.QUEUED);
        assertThat(p.take(c)).isEqualTo(ReadPermits.Grant.QUEUED);
        assertThat(ran).isEmpty();

        p.giveBack();
        assertThat(ran).containsExactly(b);
        assertThat(p.take(b)).isEqualTo(ReadPermits.Grant.GRANTED);
        p.giveBack();
        assertThat(ran).containsExactly(b, c);
        assertThat(p.take(c)).isEqualTo(ReadPermits.Grant.GRANTED);
        p.giveBack();
        assertThat(ran).containsExactly(b, c);   // nobody waits: the permit is kept
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.GRANTED);
    }

    @Test
    void yieldingGoesOnWhenNobodyWaitsAndOtherwiseQueuesBehindTheWaiter() {
        ReadPermits p = new ReadPermits(1, ran::add);
        assertThat(p.yieldTo(a)).isFalse();
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.GRANTED);
        assertThat(p.take(b)).isEqualTo(ReadPermits.Grant.QUEUED);

        // No permit free: a queues behind b and nothing runs until a permit comes back.
        assertThat(p.yieldTo(a)).isTrue();
        assertThat(ran).isEmpty();
        p.giveBack();
        assertThat(ran).containsExactly(b);
        assertThat(p.take(b)).isEqualTo(ReadPermits.Grant.GRANTED);
        p.giveBack();
        assertThat(ran).containsExactly(b, a);

        // A permit free while a woken task has not taken it yet, and a waiter: the waiter runs
        // at once, and the yielding task queues.
        ReadPermits q = new ReadPermits(1, ran::add);
        ran.clear();
        q.take(a);
        q.take(b);
        q.take(c);
        q.giveBack();
        assertThat(ran).containsExactly(b);
        assertThat(q.yieldTo(a)).isTrue();
        assertThat(ran).containsExactly(b, c);
    }

    @Test
    void stopWakesEveryQueuedAndParkedTaskOnceAndRefusesFromThenOn() {
        ReadPermits p = new ReadPermits(1, ran::add);
        p.take(a);
        p.take(b);
        p.take(c);
        p.laneStarted();
        Runnable packer = named("packer");
        assertThat(p.parkUnless(packer, 1)).isTrue();

        assertThat(p.stop()).isTrue();
        assertThat(ran).containsExactly(b, c, packer);
        assertThat(p.stop()).isFalse();
        assertThat(ran).hasSize(3);
        assertThat(p.stopped()).isTrue();
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.STOPPED);
        assertThat(p.yieldTo(a)).isFalse();
        p.laneEnded();
        assertThat(ran).hasSize(3);   // the packer was woken by stop, not twice
    }

    @Test
    void theEndStopsWithoutWakingAnything() {
        ReadPermits p = new ReadPermits(1, ran::add);
        p.take(a);
        p.end();
        assertThat(p.take(a)).isEqualTo(ReadPermits.Grant.STOPPED);
        assertThat(ran).isEmpty();
    }

    @Test
    void thePackerParksUntilALaneEndsAndOnlyWhileTheLimitIsReached() {
        ReadPermits p = new ReadPermits(4, ran::add);
        Runnable packer = named("packer");
        assertThat(p.parkUnless(packer, 1)).isFalse();   // no lane: END may be written
        p.laneStarted();
        p.laneStarted();
        assertThat(p.activeLanes()).isEqualTo(2);
        assertThat(p.parkUnless(packer, 3)).isFalse();   // a slot is free
        assertThat(p.parkUnless(packer, 2)).isTrue();
        p.laneEnded();
        assertThat(ran).containsExactly(packer);
        p.laneEnded();
        assertThat(ran).containsExactly(packer);   // woken once: it is no longer parked
        assertThat(p.activeLanes()).isZero();
    }

    /**
     * Cancel between the packer's last look at the lanes and its parking: parked then, nothing
     * would ever wake it (stop has woken what was parked, and stopped lanes do not end), and the
     * file it holds would stay open.
     */
    @Test
    void aPackerDoesNotParkOnceStopped() {
        ReadPermits p = new ReadPermits(1, ran::add);
        p.laneStarted();
        p.stop();
        assertThat(p.parkUnless(named("packer"), 1)).as("parked after stop, never woken").isFalse();
    }

    /**
     * Seeded random schedules: tasks that each read a number of chunks, run in a random order,
     * with chunks released in a random order. Every task finishes (no lost wake-up) and no more
     * chunks are out than permits.
     */
    @Test
    void randomSchedulesFinishEveryTaskWithinThePermits() {
        for (long seed = 1; seed <= 200; seed++) {
            Random rnd = new Random(seed);
            int permits = 1 + rnd.nextInt(4);
            int tasks = 1 + rnd.nextInt(6);
            ArrayDeque<Runnable> runnable = new ArrayDeque<>();
            List<Runnable> ready = new ArrayList<>();
            ReadPermits p = new ReadPermits(permits, ready::add);
            List<Integer> out = new ArrayList<>();   // chunks not released yet, by task
            int[] left = new int[tasks];
            String what = "seed " + seed + ", " + permits + " permits, " + tasks + " tasks";
            for (int t = 0; t < tasks; t++) {
                left[t] = rnd.nextInt(8);
                int id = t;
                ready.add(new Runnable() {
                    @Override
                    public void run() {
                        while (left[id] > 0) {
                            if (p.take(this) != ReadPermits.Grant.GRANTED) {
                                return;
                            }
                            left[id]--;
                            out.add(id);
                            assertThat(out.size()).as(what).isLessThanOrEqualTo(permits);
                            if (left[id] > 0 && p.yieldTo(this)) {
                                return;
                            }
                        }
                    }
                });
            }
            for (int step = 0; step < 10_000; step++) {
                runnable.addAll(ready);
                ready.clear();
                if (runnable.isEmpty() && out.isEmpty()) {
                    break;
                }
                if (!runnable.isEmpty() && (out.isEmpty() || rnd.nextBoolean())) {
                    List<Runnable> list = new ArrayList<>(runnable);
                    Runnable next = list.remove(rnd.nextInt(list.size()));
                    runnable.clear();
                    runnable.addAll(list);
                    next.run();
                } else if (!out.isEmpty()) {
                    out.remove(rnd.nextInt(out.size()));
                    p.giveBack();
                }
            }
            for (int t = 0; t < tasks; t++) {
                assertThat(left[t]).as(what + ": task " + t + " left waiting").isZero();
            }
            assertThat(out).as(what).isEmpty();
        }
    }

    @Test
    void aReleaseRacingATakeNeverLosesTheWakeUp() {
        for (int i = 0; i < 5_000; i++) {
            AtomicInteger woken = new AtomicInteger();
            ReadPermits p = new ReadPermits(1, t -> woken.incrementAndGet());
            p.take(a);
            AtomicBoolean granted = new AtomicBoolean();
            RaceTestUtils.race(p::giveBack, () -> granted.set(p.take(b) == ReadPermits.Grant.GRANTED));
            assertThat(granted.get() ? 0 : 1).as("round " + i).isEqualTo(woken.get());
        }
    }

    @Test
    void aStopRacingTheParkAlwaysLeavesThePackerToRun() {
        for (int i = 0; i < 5_000; i++) {
            AtomicInteger woken = new AtomicInteger();
            ReadPermits p = new ReadPermits(1, t -> woken.incrementAndGet());
            p.laneStarted();
            AtomicBoolean parked = new AtomicBoolean();
            RaceTestUtils.race(p::stop, () -> parked.set(p.parkUnless(a, 1)));
            assertThat(parked.get() ? 1 : 0).as("round " + i + ": parked, then woken").isEqualTo(woken.get());
        }
    }
}
