package io.rdmaflux.connector;

import io.rdmaflux.connector.process.ProcessGroup;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The linger after a command exited: how long the rest of its process group may go on, and its
 * output stay open ({@link CommandOptions#linger()}), counted from the command's exit whatever
 * its status. When it runs out, a read of the output still waiting is ended by closing our end
 * of it, and a wait for the group ends. {@link #stop()} ends it at once.
 */
final class Linger {

    private static final Logger log = Loggers.getLogger(Linger.class);

    private final Duration linger;
    private final Scheduler scheduler;
    /** The command's output (a source's or a filter's), or null. */
    private final FileInputStream stdout;
    /** The command as messages show it, for the log. */
    private final String what;

    /** Set by {@link #stop()}: ends a linger at once. */
    private volatile boolean stopping;
    /** The linger after the command's exit ran out. */
    private volatile boolean over;
    /** The command's output ended by itself. */
    private volatile boolean outputEnded;
    /** Our end of its output was closed because the linger ran out before the output ended. */
    private volatile boolean outputCut;
    private volatile Disposable timer;

    Linger(Duration linger, Scheduler scheduler, FileInputStream stdout, String what) {
        this.linger = linger;
        this.scheduler = scheduler;
        this.stdout = stdout;
        this.what = what;
    }

    /**
     * Runs when the command exited (on the JDK's process reaper): the linger starts. Its end
     * is a task on the connector's scheduler, where the reads and waits run too.
     */
    void start() {
        if (stopping) {
            return;
        }
        try {
            timer = scheduler.schedule(this::end, linger.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // The scheduler is shut down: end the linger now rather than never.
            log.debug("cannot time the linger of {} ({})", what, e.toString());
            end();
        }
    }

    /** The linger ran out: a read of the output still waiting is ended by closing our end. */
    private void end() {
        over = true;
        if (stdout != null && !outputEnded && !stopping) {
            outputCut = true;
            ProcessIo.closeQuietly(stdout);
        }
    }

    /** The command is being stopped: a wait for the group ends at once. */
    void stop() {
        stopping = true;
    }

    /** The timer is no longer needed (the command is stopped). */
    void cancel() {
        Disposable t = timer;
        if (t != null) {
            t.dispose();
        }
    }

    /** Whether the linger ran out. */
    boolean over() {
        return over;
    }

    /**
     * Whether the output was cut off: the linger ran out while something still held it open. A
     * read that ended with -1 saw the real end (our close makes it throw instead): the linger
     * may have run out just after it, and cut nothing.
     */
    boolean cutOutput() {
        return outputCut && !outputEnded;
    }

    /**
     * {@code in}, the command's output, which ends at its real end or when the linger cut it
     * off first.
     */
    ChunkReader output(ChunkReader in) {
        return new ChunkReader() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                int n;
                try {
                    n = in.read(dst);
                } catch (IOException e) {
                    if (outputCut) {
                        return -1;
                    }
                    throw e;
                }
                if (n < 0) {
                    outputEnded = true;
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }

            @Override
            public void abort() {
                in.abort();
            }
        };
    }

    /**
     * Waits while any process of {@code group} is alive, until the linger runs out, the command
     * is stopped or this thread is interrupted; whether something of the group was still left.
     */
    boolean awaitGroup(ProcessGroup group) {
        long pause = 1;
        boolean left = group.alive();
        while (left && !stopping && !over && !Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pause = Math.min(2 * pause, 100);
            left = group.alive();
        }
        return left;
    }
}
