package io.rdmaflux.cli.remote;

import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * What the ssh process of a {@link RemoteAgent} prints on stderr, read on a thread of its own
 * and sanitized line by line. Until the agent says hello ({@link #release}) the last lines are
 * kept, not printed: they explain a failed start ({@link AgentFailures}), and a login's noise
 * is shown only if the agent does start. From then on every line goes to the shell's log.
 */
final class StderrCapture {

    /** How many stderr lines are kept from before the hello, to explain a failed start. */
    static final int EARLY_LINES = 20;
    /** Longest stderr line kept; stderr is for people, so longer ones are cut. */
    static final int MAX_LINE = 4096;

    private final RemoteHost host;
    private final BiConsumer<RemoteHost, String> log;
    /** Guarded by itself, as is {@link #released}. */
    private final Deque<String> early = new ArrayDeque<>();
    private boolean released;
    private volatile String last;
    private final Thread reader;

    private StderrCapture(InputStream err, RemoteHost host, BiConsumer<RemoteHost, String> log) {
        this.host = host;
        this.log = log;
        this.reader = new Thread(() -> read(err), "agent-stderr-" + host);
        reader.setDaemon(true);
    }

    /** Starts reading {@code err} until its end; lines for people go to {@code log} once released. */
    static StderrCapture start(InputStream err, RemoteHost host, BiConsumer<RemoteHost, String> log) {
        StderrCapture c = new StderrCapture(err, host, log);
        c.reader.start();
        return c;
    }

    /** The agent said hello: prints the lines kept so far, and every later line as it comes. */
    void release() {
        synchronized (early) {
            released = true;
            for (String line : early) {
                log.accept(host, line);
            }
            early.clear();
        }
    }

    /** The last {@value #EARLY_LINES} lines from before {@link #release} (all of them when never released). */
    List<String> early() {
        synchronized (early) {
            return List.copyOf(early);
        }
    }

    /** The last line read, sanitized; null when none. */
    String last() {
        return last;
    }

    /** Waits (bounded) for the end of stderr, so that {@link #early} and {@link #last} are complete. */
    void awaitEnd(long millis) throws InterruptedException {
        reader.join(millis);
    }

    private void read(InputStream err) {
        LineReader lines = new LineReader(err, MAX_LINE);
        try {
            String line;
            while ((line = lines.next()) != null) {
                String clean = RemoteText.sanitize(line);
                if (clean.isEmpty()) {
                    continue;
                }
                last = clean;
                synchronized (early) {
                    if (!released) {
                        if (early.size() == EARLY_LINES) {
                            early.removeFirst();
                        }
                        early.addLast(clean);
                        continue;
                    }
                }
                log.accept(host, clean);
            }
        } catch (IOException e) {
            // The process is gone.
        }
    }
}
