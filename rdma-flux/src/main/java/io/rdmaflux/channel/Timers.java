package io.rdmaflux.channel;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where a session's timers run (heartbeat, idle and handshake timeouts, the cancel grace, the
 * wait for the connection to close) and the clock they read. Production sessions use
 * {@link #system()}; tests give a virtual-time scheduler, so that a timeout is checked at the
 * exact instant and not by waiting.
 *
 * @param scheduler where the timers run
 * @param nanoTime  a monotonic clock in nanoseconds that agrees with {@code scheduler}
 */
record Timers(Scheduler scheduler, LongSupplier nanoTime) {

    /** Reactor's parallel scheduler and {@link System#nanoTime()}, which, unlike wall time, never jumps. */
    static Timers system() {
        return new Timers(Schedulers.parallel(), System::nanoTime);
    }

    /** {@code scheduler}'s own clock: for a virtual-time scheduler, its virtual time. */
    static Timers on(Scheduler scheduler) {
        return new Timers(scheduler, () -> scheduler.now(TimeUnit.NANOSECONDS));
    }

    long now() {
        return nanoTime.getAsLong();
    }
}
