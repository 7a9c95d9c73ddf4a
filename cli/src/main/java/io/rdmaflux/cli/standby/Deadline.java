package io.rdmaflux.cli.standby;

import java.time.Duration;

/** Runs an action once a time is over, on a daemon thread of its own: a bound on a blocking wait. */
final class Deadline {

    private Deadline() {
    }

    /** Runs {@code action} after {@code wait}, unless the returned thread is interrupted first. */
    static Thread after(Duration wait, Runnable action) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                return;   // the wait ended in time
            }
            action.run();
        }, "standby-deadline");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
