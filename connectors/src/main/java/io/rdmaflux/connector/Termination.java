package io.rdmaflux.connector;

import io.rdmaflux.connector.CommandProcess.Ending;
import java.time.Duration;

/**
 * How a command is stopped: SIGTERM to its whole group (through its guard), the grace, then the
 * end of the guard's lifeline, which sends SIGKILL to whatever of the group is left, whether or
 * not the command exited within the grace. Only when the guard failed does this JVM kill what it
 * can still find by itself.
 */
final class Termination {

    /** Bound on waiting for the command to exit after SIGKILL. */
    private static final long EXIT_MILLIS = 10_000;

    /**
     * Waits out the grace after SIGTERM: true when the command exited within it. A seam so that
     * a test sees which grace was asked for, without measuring time.
     */
    @FunctionalInterface
    interface GraceWait {
        /** The real one: waits until the command exits or the grace is over. */
        GraceWait REAL = (command, grace) -> ProcessIo.waitFor(command, grace.toMillis());

        boolean await(Process command, Duration grace);
    }

    private Termination() {
    }

    /**
     * Stops {@code command} and its group, and waits (bounded) until they are gone.
     *
     * @return how the command ended: it had exited, it exited within the grace, or it was killed
     */
    static Ending stop(Process command, Guard guard, Duration grace, GraceWait wait) {
        Ending how = Ending.EXITED;
        if (command.isAlive()) {
            if (!guard.tell("term")) {
                command.descendants().forEach(ProcessHandle::destroy);
                command.destroy();
            }
            how = wait.await(command, grace) ? Ending.TERMINATED : Ending.KILLED;
        }
        guard.end();
        if (!ProcessIo.waitFor(command, EXIT_MILLIS)) {
            // Only when the guard failed: kill what can still be found, before the caller closes
            // our end of its stdin.
            command.descendants().forEach(ProcessHandle::destroyForcibly);
            command.destroyForcibly();
            ProcessIo.waitFor(command, EXIT_MILLIS);
        }
        return how;
    }
}
