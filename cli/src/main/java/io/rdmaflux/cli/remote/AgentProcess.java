package io.rdmaflux.cli.remote;

import io.rdmaflux.connector.process.ProcessGroup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The local ssh process that runs one {@link RemoteAgent}, in a process group of its own
 * ({@link ProcessGroup}, so that ending it ends what it started too: a ProxyCommand, an -e
 * wrapper's children), or the warm agent's session it reached through the shared connection
 * instead ({@link WarmSessionProcess}: no local process, ended by closing its socket), and the
 * registry of those still running, which the tool's end waits for ({@link #awaitAll}). It and
 * {@link RemoteInstall} (its copy of the release) are the only classes here that use
 * {@link ProcessGroup}.
 */
final class AgentProcess {

    private static final Logger log = Loggers.getLogger(AgentProcess.class);
    /** How long ssh's process group has after SIGTERM before it gets SIGKILL. */
    private static final Duration TERM_GRACE = Duration.ofSeconds(2);

    /**
     * Processes of this tool whose ssh process (or its process group) still runs, each with
     * the agent that disposes of it when the tool ends.
     */
    private static final Map<AgentProcess, Disposable> running = new ConcurrentHashMap<>();

    private final RemoteHost host;
    private final Process process;
    /** Null for a warm agent's session reached directly: nothing runs here. */
    private final ProcessGroup group;
    private final OutputStream stdin;
    /** When the ssh process is killed if it has not ended (System.nanoTime), once ending. */
    private volatile long killAt;

    private AgentProcess(RemoteHost host, Process process, ProcessGroup group) {
        this.host = host;
        this.process = process;
        this.group = group;
        this.stdin = process.getOutputStream();
    }

    /** Starts {@code argv} (the remote shell's command line) leading a process group of its own. */
    static AgentProcess start(RemoteHost host, List<String> argv) throws IOException {
        List<String> run = ProcessGroup.command(argv);
        Process p = SshPrompts.apply(new ProcessBuilder(run)).start();
        return new AgentProcess(host, p, ProcessGroup.of(p, run));
    }

    /** A warm agent's session reached through {@code channel} ({@link WarmRoute}), seen as a process. */
    static AgentProcess session(RemoteHost host, java.nio.channels.SocketChannel channel) {
        return new AgentProcess(host, new WarmSessionProcess(channel, "warm-session-" + host), null);
    }

    /**
     * Counts this process among those the tool's end waits for, until it and its group have
     * ended; {@code owner} is disposed of then if it was not before.
     */
    void register(Disposable owner) {
        running.put(this, owner);
        // Kept while something ssh started still runs in its group, for awaitAll to end it.
        process.onExit().thenRun(() -> {
            if (group == null || !group.alive()) {
                running.remove(this);
            }
        });
    }

    /** The ssh process's id; -1 for a session reached directly. */
    long pid() {
        return group == null ? -1 : process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    InputStream stdout() {
        return process.getInputStream();
    }

    InputStream stderr() {
        return process.getErrorStream();
    }

    /** Writes one line to the agent's stdin; a failure only means the agent is gone, which its end reports. */
    void writeLine(String line) {
        synchronized (stdin) {
            try {
                stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            } catch (IOException e) {
                log.debug("writing to the agent on {} failed: {}", host, e.toString());
            }
        }
    }

    void closeStdin() {
        synchronized (stdin) {
            try {
                stdin.close();
            } catch (IOException e) {
                // Already closed by a dead process.
            }
        }
    }

    /** Closes stdin, so that the remote end finishes on its own, and ends the group if ssh has not ended after {@code grace}. */
    void endWithin(Duration grace) {
        killAt = System.nanoTime() + grace.toNanos();
        closeStdin();
        // boundedElastic: ending the group waits (bounded) for it.
        Schedulers.boundedElastic().schedule(() -> {
            if (process.isAlive()) {
                log.debug("the ssh process for {} did not end; ending its process group", host);
                terminate();
            }
        }, grace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Waits for ssh to exit, killing its group at once when {@code now}, or when it has not
     * exited within {@code grace}; gives its exit status.
     */
    int awaitExit(boolean now, Duration grace) throws InterruptedException {
        if (now || !process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
        }
        return process.waitFor();
    }

    /** Kills the whole group at once (SIGKILL); closes a direct session. */
    void kill() {
        if (group == null) {
            process.destroy();
        } else {
            group.kill();
        }
    }

    /** Ends the group (SIGTERM, then SIGKILL after a grace); closes a direct session. */
    private void terminate() {
        if (group == null) {
            process.destroy();
        } else {
            group.terminate(TERM_GRACE);
        }
    }

    /**
     * For a tool about to end: disposes of every agent whose ssh process still runs and waits
     * until each has ended, killing it when its grace is over, so that no ssh process outlives
     * the tool and a login under way still runs to its end.
     *
     * @param note told, once per host, when the wait is likely to be noticed (over a second)
     */
    static void awaitAll(Consumer<String> note) {
        running.values().forEach(Disposable::dispose);
        for (AgentProcess p : running.keySet()) {
            p.awaitEnd(note);
        }
    }

    private void awaitEnd(Consumer<String> note) {
        try {
            long left = killAt - System.nanoTime();
            if (left > TimeUnit.SECONDS.toNanos(1) && process.isAlive()) {
                note.accept("waiting up to " + TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999)
                        + " s for the ssh session to " + host + " to end");
            }
            if (!process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                log.debug("the ssh process for {} did not end; ending its process group", host);
            }
            // Also when ssh ended by itself but left something of its group running (a
            // ProxyCommand when ssh was killed): nothing it started may outlive the tool.
            terminate();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }
}
