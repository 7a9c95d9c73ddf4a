package io.rdmaflux.connector;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The sink writes under way in this process, so that its end cannot cut their clean-up short.
 * A cancelled write cleans up on its own thread after the cancel has returned (a file sink
 * removes its partial file, an append is cut back); a process that exits at that moment, or
 * in the middle of a write, would leave the partial output behind. On a JVM exit a shutdown
 * hook, and before a signal's default action (which runs no hooks) {@link Sink#abandonAll},
 * cancels every write still open and waits, bounded, until each has cleaned up.
 */
final class OpenWrites {

    /** How long an exit waits for the clean-up of the writes it cancels. */
    static final Duration EXIT_WAIT = Duration.ofSeconds(2);
    /** A wait longer than this is worth a word to the person waiting. */
    private static final Duration NOTE_AFTER = Duration.ofSeconds(1);

    private static final Set<WriteLoop> open = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean hooked = new AtomicBoolean();

    private OpenWrites() {
    }

    static void add(WriteLoop loop) {
        if (!hooked.get() && hooked.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> abandonAll(EXIT_WAIT), "rdflux-open-writes"));
            } catch (IllegalStateException exiting) {
                // Already exiting: nothing can wait for this write any more.
            }
        }
        open.add(loop);
    }

    static void remove(WriteLoop loop) {
        open.remove(loop);
    }

    /** Cancels every open write and waits up to {@code timeout} for all to clean up; true if all did. */
    static boolean abandonAll(Duration timeout) {
        List<WriteLoop> loops = List.copyOf(open);
        loops.forEach(WriteLoop::abandon);
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = true;
        for (WriteLoop loop : loops) {
            all &= loop.awaitCleanUp(deadline - System.nanoTime());
        }
        return all;
    }

    /**
     * {@link #abandonAll(Duration)}, for a write in the middle of its commit (a file being
     * synced and renamed when the failure came); any other write gets {@link #EXIT_WAIT} at most,
     * as before (its clean-up is quick, or it is stuck in a write that nothing can end, such as
     * a full pipe on stdout). When the wait for a commit goes on past a second, {@code note}
     * (when not null) is told once what is waited for.
     */
    static boolean abandonAll(Duration commitTimeout, Consumer<String> note) {
        List<WriteLoop> loops = List.copyOf(open);
        loops.forEach(WriteLoop::abandon);
        long start = System.nanoTime();
        long others = start + Math.min(EXIT_WAIT.toNanos(), commitTimeout.toNanos());
        long commits = start + commitTimeout.toNanos();
        boolean all = true;
        boolean told = note == null;
        for (WriteLoop loop : loops) {
            boolean commit = loop.committing();
            long deadline = commit ? commits : others;
            if (!told && commit) {
                long quiet = Math.min(deadline, start + NOTE_AFTER.toNanos()) - System.nanoTime();
                if (loop.awaitCleanUp(quiet)) {
                    continue;
                }
                told = true;
                long left = Math.max(0, deadline - System.nanoTime());
                note.accept("waiting up to " + TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999) + " s for the write to "
                        + loop.describe() + " to be committed or cleaned up");
            }
            all &= loop.awaitCleanUp(deadline - System.nanoTime());
        }
        return all;
    }
}
