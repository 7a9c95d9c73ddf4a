package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A session's clock on its peer ({@link Liveness}) on a clock the test sets: each timeout is
 * due at its deadline and not a nanosecond before, PINGs only once authenticated, and a sign
 * of life in either direction moves its deadline.
 */
class LivenessTest {

    private static final ChannelOptions OPTIONS = ChannelOptions.defaults()
            .withHandshakeTimeout(Duration.ofSeconds(10))
            .withLiveness(Duration.ofSeconds(2), Duration.ofSeconds(30));

    private final AtomicLong clock = new AtomicLong(1_000);
    private final Liveness liveness = new Liveness(OPTIONS, new Timers(Schedulers.immediate(), clock::get));

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    @Test
    void theHandshakeTimesOutAtItsDeadlineAndSendsNoPingMeanwhile() {
        advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(liveness.due(false)).isEqualTo(Liveness.Due.NOTHING);
        advance(Duration.ofNanos(1));
        assertThat(liveness.due(false)).isEqualTo(Liveness.Due.HANDSHAKE_TIMEOUT);
        assertThat(liveness.due(true)).as("authenticated: no handshake deadline").isEqualTo(Liveness.Due.PING);
    }

    @Test
    void anAuthenticatedSidePingsHalfAHeartbeatAfterItLastSent() {
        advance(Duration.ofSeconds(1).minusNanos(1));
        assertThat(liveness.due(true)).isEqualTo(Liveness.Due.NOTHING);
        advance(Duration.ofNanos(1));
        assertThat(liveness.due(true)).isEqualTo(Liveness.Due.PING);
        liveness.sent();
        assertThat(liveness.due(true)).isEqualTo(Liveness.Due.NOTHING);
    }

    @Test
    void silenceFromThePeerTimesOutAtTheIdleTimeoutUnlessItWasHeard() {
        advance(Duration.ofSeconds(20));
        liveness.heard();
        advance(Duration.ofSeconds(30).minusNanos(1));
        liveness.sent();
        assertThat(liveness.due(true)).isEqualTo(Liveness.Due.NOTHING);
        advance(Duration.ofNanos(1));
        assertThat(liveness.due(true)).isEqualTo(Liveness.Due.IDLE_TIMEOUT);
    }

    @Test
    void theTickRunsOnceAHeartbeatUntilStopped() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        try {
            Liveness ticking = new Liveness(OPTIONS, Timers.on(time));
            AtomicInteger ticks = new AtomicInteger();
            ticking.start(ticks::incrementAndGet);
            time.advanceTimeBy(Duration.ofSeconds(6));
            assertThat(ticks).hasValue(3);
            ticking.stop();
            time.advanceTimeBy(Duration.ofSeconds(6));
            assertThat(ticks).hasValue(3);
        } finally {
            time.dispose();
        }
    }
}
