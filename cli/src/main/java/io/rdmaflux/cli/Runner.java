package io.rdmaflux.cli;

import io.rdmaflux.connector.StdoutSink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import sun.misc.Signal;

/**
 * Runs a tool's work to its end and turns the outcome into an exit code.
 *
 * <p>On SIGINT, SIGTERM or SIGHUP ({@link Signals}): a stream under way fails through its
 * guarded data path, which removes partial output and tells the peer, and the work is given
 * {@link #CLEANUP_MS} to end; work with no guarded stream (listening, connecting, or work that
 * guards none) is cancelled at once and given {@link #SETTLE_MS} to clean up. The exit status
 * is then {@link ExitCode#ofSignal 128 + the signal's number}, unless the stream had already
 * completed: a signal that comes too late to stop it changes nothing.
 */
final class Runner {

    private static final long CLEANUP_MS = 2000;
    private static final long SETTLE_MS = 300;

    private Runner() {
    }

    static int run(Mono<?> work) {
        Signals.install();
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Disposable running = work.subscribe(v -> { }, e -> {
            failure.set(e);
            done.countDown();
            wake.countDown();
        }, () -> {
            done.countDown();
            wake.countDown();
        });
        Disposable onSignal = Signals.raised().subscribe(s -> wake.countDown());
        try {
            wake.await();
            if (done.getCount() > 0) {
                // A signal came first. A stream under way fails through its guard on its own.
                if (!Signals.streamStarted() || !done.await(CLEANUP_MS, TimeUnit.MILLISECONDS)) {
                    running.dispose();
                    // Cancelling reports nothing back: give what cancel set off (a sink removing
                    // its file, an ERROR frame) a moment on its own threads.
                    Thread.sleep(SETTLE_MS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.dispose();
        } finally {
            onSignal.dispose();
        }
        Signal signal = Signals.received();
        Throwable e = failure.get();
        boolean ok = done.getCount() == 0 && e == null;
        if (signal != null && !ok) {
            if (e != null && !Signals.consequence(e)) {
                Console.error(Console.message(e));
            } else {
                // Ctrl-C also reaches ssh where it shares the terminal, which may die first:
                // the connection it lost is the signal's doing, not news to the user.
                Console.error("interrupted by " + Signals.name(signal)
                        + (e == null && Signals.streamStarted() ? "; the stream was cancelled" : ""));
            }
            return ExitCode.ofSignal(signal.getNumber());
        }
        if (e != null) {
            Throwable cause = reactor.core.Exceptions.unwrap(e);
            if (StdoutSink.readerGone(cause) || cause instanceof SegmentFailure sf && sf.quiet()) {
                // Piped into head, which has what it wanted: no error to report, as cat reports none.
                return ExitCode.PIPE;
            }
            Console.error(e);
            return ExitCode.of(cause);
        }
        return ExitCode.OK;
    }
}
