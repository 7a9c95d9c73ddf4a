package io.rdmaflux.connector;

import java.util.concurrent.TimeUnit;

/** The two small waits and closes that every part of a command's life needs, never throwing. */
final class ProcessIo {

    private ProcessIo() {
    }

    /** Whether {@code p} exited within {@code millis}; an interrupt ends the wait (and is kept). */
    static boolean waitFor(Process p, long millis) {
        try {
            return p.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // Closing is all that is left to do.
            }
        }
    }
}
