package io.rdmaflux.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Runs a tool's work to its end and turns the outcome into an exit code. On Ctrl-C or
 * SIGTERM the work is cancelled, so sinks remove partial output and the peer is told, and the
 * process waits briefly for that clean-up before it exits.
 */
final class Runner {

    private static final long CLEANUP_MS = 3000;

    private Runner() {
    }

    static int run(Mono<?> work) {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Disposable running = work.subscribe(v -> { }, e -> {
            failure.set(e);
            done.countDown();
        }, done::countDown);
        Thread hook = new Thread(() -> {
            if (done.getCount() > 0) {
                running.dispose();
                try {
                    // Give sinks time to remove partial files and the peer time to hear why.
                    done.await(CLEANUP_MS, TimeUnit.MILLISECONDS);
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Console.error("interrupted; the transfer was cancelled");
            }
        }, "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.dispose();
            return ExitCode.INTERRUPTED;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook reports.
            return ExitCode.INTERRUPTED;
        }
        Throwable e = failure.get();
        if (e != null) {
            Console.error(e);
            return ExitCode.of(reactor.core.Exceptions.unwrap(e));
        }
        return ExitCode.OK;
    }
}
