package io.rdmaflux.connector.tree;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The bounded read-ahead of one {@link TreeReader}: a fixed number of permits, one for each
 * chunk read and not yet released downstream, shared by the packer and the large-file lanes.
 *
 * <p>A task that finds no permit is queued and handed to {@code run} when a permit comes back.
 * The packer may also park until a lane ends ({@link #parkUnless}). {@link #stop()} hands every
 * queued or parked task to {@code run}, so that each sees it is stopped and closes its file.
 * Nothing here does I/O or knows threads: tasks leave through {@code run}, which the reader
 * points at its scheduler, so the rules can be tested with a list for a scheduler.
 */
final class ReadPermits {

    /** What {@link #take} gave. */
    enum Grant {
        /** A permit: the task may read one chunk. */
        GRANTED,
        /** None free: the task is queued and runs again when a permit comes back. */
        QUEUED,
        /** The stream is stopped: the task closes what it holds and ends. */
        STOPPED
    }

    private final Object lock = new Object();
    private final Consumer<Runnable> run;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int permits;
    private int activeLanes;
    private Runnable parked;
    private volatile boolean stopped;

    /**
     * @param permits chunks that may be out at once
     * @param run     how a woken task is run again (the reader's scheduler)
     */
    ReadPermits(int permits, Consumer<Runnable> run) {
        this.permits = permits;
        this.run = run;
    }

    /** Takes a permit, or queues {@code task} to run again when one comes back. */
    Grant take(Runnable task) {
        synchronized (lock) {
            if (stopped) {
                return Grant.STOPPED;
            }
            if (permits > 0) {
                permits--;
                return Grant.GRANTED;
            }
            waiting.add(task);
            return Grant.QUEUED;
        }
    }

    /**
     * Lets a waiting task go first, so that lanes share the permits: true when {@code task} was
     * queued behind it (and must return), false when nobody waits (it goes on).
     */
    boolean yieldTo(Runnable task) {
        Runnable next;
        synchronized (lock) {
            if (waiting.isEmpty() || stopped) {
                return false;
            }
            waiting.add(task);
            next = permits > 0 ? waiting.poll() : null;
        }
        if (next != null) {
            run.accept(next);
        }
        return true;
    }

    /** A chunk was released: its permit comes back, and the first waiting task runs. */
    void giveBack() {
        Runnable next;
        synchronized (lock) {
            permits++;
            next = waiting.poll();
        }
        if (next != null) {
            run.accept(next);
        }
    }

    boolean stopped() {
        return stopped;
    }

    /**
     * Stops (cancel or error): every queued or parked task runs once more to close its file.
     *
     * @return true for the call that stopped it, so that only one error goes downstream
     */
    boolean stop() {
        List<Runnable> wake;
        boolean first;
        synchronized (lock) {
            first = !stopped;
            stopped = true;
            wake = new ArrayList<>(waiting);
            waiting.clear();
            if (parked != null) {
                wake.add(parked);
                parked = null;
            }
        }
        wake.forEach(run);
        return first;
    }

    /** The stream is complete: stopped, with nothing to wake (every lane has ended). */
    void end() {
        synchronized (lock) {
            stopped = true;
        }
    }

    /** A lane was handed a file; the packer counts it against {@code parallelFiles}. */
    void laneStarted() {
        synchronized (lock) {
            activeLanes++;
        }
    }

    /** A lane emitted its file's last chunk: a parked packer runs again. */
    void laneEnded() {
        Runnable wake;
        synchronized (lock) {
            activeLanes--;
            wake = parked;
            parked = null;
        }
        if (wake != null) {
            run.accept(wake);
        }
    }

    int activeLanes() {
        synchronized (lock) {
            return activeLanes;
        }
    }

    /**
     * Parks {@code task} until a lane ends, unless fewer than {@code laneLimit} lanes are active
     * (1: wait for all of them) or the stream is stopped.
     *
     * @return true when parked (the task returns), false when it may go on
     */
    boolean parkUnless(Runnable task, int laneLimit) {
        synchronized (lock) {
            // Stopped: parking now would leave the task's open files to nobody, since stop()
            // has already woken what was parked.
            if (activeLanes < laneLimit || stopped) {
                return false;
            }
            parked = task;
            return true;
        }
    }
}
