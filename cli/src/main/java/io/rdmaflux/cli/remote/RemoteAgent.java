package io.rdmaflux.cli.remote;

import io.rdmaflux.cli.remote.RemoteException.Kind;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.protocol.RemoteText;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The coordinator's handle on one {@code rdflux agent} running on another host over ssh
 * (started by {@link RemoteShell#startAgent}). The agent says hello; {@link #submit} then
 * sends it a job (the key inside travels over ssh's stdin, never in argv); {@link #listening}
 * gives the port its receiver bound; {@link #connect} tells its sender where to go;
 * {@link #done} is the outcome. {@link #dispose} closes the agent's stdin, which makes it tear
 * its job down and exit; the ssh process is killed if it lingers, with its whole process group
 * (ssh runs in one of its own, {@link ProcessGroup}): SIGTERM, then SIGKILL after a grace.
 *
 * <p>An agent still starting is never cut off mid-login if it can be helped: a login shell
 * killed half-way through its startup files can leave their locks behind (pyenv's rehash lock
 * made every later login wait 60 s). Disposed, or past its start timeout, it gets its stdin
 * closed and the rest of its start timeout plus {@link #EXIT_GRACE} to finish the login, start,
 * see the end of its input and exit on its own; only then is ssh killed.
 *
 * <p>Every failure is a {@link RemoteException} whose message is one line naming the host:
 * ssh could not connect or log in, the tool is missing there, the agent failed or was lost.
 * Text from the remote host is sanitized before it is printed or put into a message.
 */
public final class RemoteAgent implements Disposable {

    private static final Logger log = Loggers.getLogger(RemoteAgent.class);

    /** How long the agent has to report its receiver's port once it has the job. */
    static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(30);
    /** How long the ssh process may take to end after stdin closed (and its start, if it was starting), before it is killed. */
    static final Duration EXIT_GRACE = Duration.ofSeconds(10);
    /** How long ssh's process group has after SIGTERM before it gets SIGKILL. */
    private static final Duration TERM_GRACE = Duration.ofSeconds(2);
    /** How many stderr lines are kept from before the hello, to explain a failed start. */
    private static final int EARLY_LINES = 20;
    /** Longest stderr line kept; stderr is for people, so longer ones are cut. */
    private static final int MAX_STDERR_LINE = 4096;

    /**
     * Agents of this process whose ssh process (or its process group) still runs: the tool's
     * end waits for them ({@link #awaitAll}).
     */
    private static final Set<RemoteAgent> running = ConcurrentHashMap.newKeySet();

    private final RemoteShell shell;
    private final RemoteHost host;
    private final Process process;
    /** The ssh process and what it started (a ProxyCommand, an -e wrapper's children): ended together. */
    private final ProcessGroup group;
    /** Given to the agent on its command line; only a hello carrying it counts (see {@link #hello(String)}). */
    private final String nonce;
    private final OutputStream stdin;
    private final Sinks.One<AgentMessage.Hello> hello = Sinks.one();
    private final Sinks.One<AgentMessage.Listening> listening = Sinks.one();
    private final Sinks.One<AgentMessage.Done> done = Sinks.one();
    private final Sinks.Empty<Void> exited = Sinks.empty();
    private final Deque<String> early = new ArrayDeque<>();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final Thread stderrReader;
    private final Disposable startTimer;
    private final long startDeadline;
    private volatile boolean greeted;
    private volatile boolean startTimedOut;
    /** When the ssh process is killed if it has not ended (System.nanoTime), once disposed. */
    private volatile long killAt;
    private volatile long bytes;
    private volatile AgentMessage.Progress progress = new AgentMessage.Progress(0);
    private volatile String protocolError;
    private volatile String lastStderr;

    private RemoteAgent(RemoteShell shell, RemoteHost host, Process process, ProcessGroup group, String nonce) {
        this.shell = shell;
        this.host = host;
        this.process = process;
        this.group = group;
        this.nonce = nonce;
        this.stdin = process.getOutputStream();
        this.stderrReader = daemon("stderr", () -> readStderr(process.getErrorStream()));
        this.startDeadline = System.nanoTime() + shell.startTimeout().toNanos();
        this.startTimer = Schedulers.parallel().schedule(this::startTimedOut,
                shell.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        daemon("stdout", () -> readStdout(process.getInputStream()));
        running.add(this);
        // Kept while something ssh started still runs in its group, for awaitAll to end it.
        process.onExit().thenRun(() -> {
            if (!group.alive()) {
                running.remove(this);
            }
        });
    }

    static RemoteAgent start(RemoteShell shell, RemoteHost host) {
        String nonce = AgentMessage.newNonce();
        List<String> argv = shell.command(host, shell.agentCommand(nonce));
        log.debug("starting the agent on {}: {}", host, ShellWords.join(argv));
        try {
            // In a process group of its own, so that ending it ends what it started too.
            List<String> run = ProcessGroup.command(argv);
            Process p = new ProcessBuilder(run).start();
            return new RemoteAgent(shell, host, p, ProcessGroup.of(p, run), nonce);
        } catch (IOException e) {
            throw new RemoteException(Kind.UNREACHABLE, host, "cannot run '" + argv.get(0) + "': "
                    + RemoteText.sanitize(e.getMessage()) + (shell.isSsh() ? " (install OpenSSH's ssh client, or give -e)"
                    : " (check -e or " + RemoteShell.RSH_ENV + ")"));
        }
    }

    /** The host this agent runs on. */
    public RemoteHost host() {
        return host;
    }

    /** The local ssh process's id (for diagnostics). */
    public long pid() {
        return process.pid();
    }

    /**
     * The agent's hello: it runs and speaks this protocol. Fails when ssh could not reach the host
     * or log in, the tool is missing or does not start within the start timeout.
     */
    public Mono<AgentMessage.Hello> hello() {
        return hello.asMono();
    }

    /**
     * The address other hosts should connect to for this agent's receiver: the address this
     * host's sshd was reached at (from the agent's {@code SSH_CONNECTION}), which an ssh alias
     * may not resolve to as a name; the host name when the agent could not tell.
     */
    public Mono<String> dataAddress() {
        return hello().map(h -> h.sshServer() != null && AgentMessage.isAddress(h.sshServer()) ? h.sshServer() : host.host());
    }

    /** Sends the job once the agent has said hello; the key in it goes nowhere else. */
    public Mono<Void> submit(AgentMessage.Job job) {
        return hello().flatMap(h -> write(job)).then();
    }

    /**
     * The port the job's receiver bound, within 30 s of the job. The clock starts at the hello,
     * when the job goes out: ssh and the remote JVM's start have their own timeout, and on a
     * slow host they alone may take most of 30 s.
     */
    public Mono<AgentMessage.Listening> listening() {
        return hello().then(listening.asMono().timeout(LISTEN_TIMEOUT, Mono.error(() -> new RemoteException(
                Kind.TOOL_FAILED, host, "the agent did not report a listening port within "
                        + LISTEN_TIMEOUT.toSeconds() + " s"))));
    }

    /** Tells the job's send sink where the downstream receiver listens. */
    public Mono<Void> connect(String address, int port) {
        return write(new AgentMessage.Connect(address, port));
    }

    /**
     * The job's outcome: completes when the agent reported success, fails with a
     * {@link RemoteException}: {@link Kind#JOB_FAILED} with the agent's status when the job
     * failed, another kind when the agent never started or was lost.
     */
    public Mono<AgentMessage.Done> done() {
        return done.asMono();
    }

    /** Payload bytes the agent reported moving so far (when the job asked for progress). */
    public long bytes() {
        return bytes;
    }

    /** The agent's last progress report (when the job asked for progress); bytes 0 and nothing else known before. */
    public AgentMessage.Progress progress() {
        return progress;
    }

    /** Completes when the ssh process has exited and its output has been read. */
    public Mono<Void> exited() {
        return exited.asMono();
    }

    /**
     * Closes the agent's stdin: it cancels its job (removing partial output, telling its peers)
     * and exits. The ssh process is killed if it has not ended 10 s later, or, while the agent
     * is still starting, 10 s after its start timeout. Returns at once.
     */
    @Override
    public void dispose() {
        if (!disposed.compareAndSet(false, true)) {
            return;
        }
        long starting = greeted || startTimedOut ? 0 : Math.max(0, startDeadline - System.nanoTime());
        endWithin(EXIT_GRACE.plusNanos(starting));
    }

    /** Closes stdin, so that the remote end finishes on its own, and kills ssh if it has not ended after {@code grace}. */
    private void endWithin(Duration grace) {
        killAt = System.nanoTime() + grace.toNanos();
        closeStdin();
        // boundedElastic: ending the group waits (bounded) for it.
        Schedulers.boundedElastic().schedule(() -> {
            if (process.isAlive()) {
                log.debug("the ssh process for {} did not end; ending its process group", host);
                group.terminate(TERM_GRACE);
            }
        }, grace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * For a tool about to end: disposes every agent whose ssh process still runs and waits
     * until each has ended, killing it when its grace is over ({@link #dispose}), so that no
     * ssh process outlives the tool and a login under way still runs to its end. The wait is
     * the grace at most: 10 s after an agent's stdin closed, or after its start timeout.
     *
     * @param note told, once per host, when the wait is likely to be noticed (over a second)
     */
    public static void awaitAll(Consumer<String> note) {
        running.forEach(RemoteAgent::dispose);
        for (RemoteAgent a : running) {
            a.awaitEnd(note);
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
            group.terminate(TERM_GRACE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.kill();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    private Mono<Void> write(AgentMessage m) {
        return Mono.<Void>fromRunnable(() -> {
            synchronized (stdin) {
                try {
                    stdin.write((m.toLine() + "\n").getBytes(StandardCharsets.UTF_8));
                    stdin.flush();
                } catch (IOException e) {
                    // The agent is gone; done() says why once its output has been read.
                    log.debug("writing to the agent on {} failed: {}", host, e.toString());
                }
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    private void closeStdin() {
        synchronized (stdin) {
            try {
                stdin.close();
            } catch (IOException e) {
                // Already closed by a dead process.
            }
        }
    }

    private void startTimedOut() {
        synchronized (early) {
            if (greeted || disposed.get() || !process.isAlive()) {
                // Disposed while starting: it already has its time to end; its end says the rest.
                return;
            }
            startTimedOut = true;
        }
        // Fail now, but let the login run to its end (see the class comment): the agent, if it
        // starts after all, sees its stdin closed and exits; its hello is ignored.
        RemoteException failure = startFailure();
        hello.tryEmitError(failure);
        listening.tryEmitError(failure);
        done.tryEmitError(failure);
        endWithin(EXIT_GRACE);
    }

    private RemoteException startFailure() {
        List<String> lines;
        synchronized (early) {
            lines = List.copyOf(early);
        }
        // The command that ran (less the nonce), quoted word by word for a shell: the remote
        // command is one word, and the rdflux path in it may hold quotes of its own.
        return new RemoteException(Kind.TOOL_FAILED, host, "rdflux did not start within "
                + shell.startTimeout().toSeconds() + " s" + lastLine(lines, " (")
                + "; check that " + ShellWords.join(shell.command(host, shell.agentCommand()))
                + " prints a hello line, or give it longer with --start-timeout");
    }

    private void readStdout(InputStream out) {
        LineReader lines = new LineReader(out, AgentMessage.MAX_LINE);
        AgentMessage.Done outcome = null;
        try {
            String line;
            while ((line = lines.next()) != null) {
                if (!greeted) {
                    // A login shell's startup files may print, with or without a newline: only
                    // the agent's hello counts, found by its exact form and this start's nonce.
                    AgentMessage.Hello h = lines.truncated() ? null : hello(line);
                    if (h == null) {
                        log.debug("{}: ignored output before the agent started: {}", host, RemoteText.sanitize(line));
                        continue;
                    }
                    if (startTimedOut) {
                        continue;
                    }
                    if (h.protocol() != AgentMessage.PROTOCOL) {
                        protocolError = "rdflux there speaks agent protocol " + h.protocol() + ", this one "
                                + AgentMessage.PROTOCOL + " (" + RemoteText.sanitize(h.version())
                                + "): install the same version on both hosts";
                        break;
                    }
                    greeted();
                    hello.tryEmitValue(h);
                    continue;
                }
                AgentMessage m;
                try {
                    if (lines.truncated()) {
                        throw new IllegalArgumentException("a line longer than " + AgentMessage.MAX_LINE + " bytes");
                    }
                    m = AgentMessage.parse(line);
                } catch (IllegalArgumentException e) {
                    protocolError = "the agent sent a malformed message (" + RemoteText.sanitize(e.getMessage()) + ")";
                    break;
                }
                if (m instanceof AgentMessage.Listening l) {
                    listening.tryEmitValue(l);
                } else if (m instanceof AgentMessage.Progress p) {
                    bytes = p.bytes();
                    progress = p;
                } else if (m instanceof AgentMessage.Done d) {
                    bytes = d.bytes();
                    outcome = d;
                }
            }
        } catch (IOException e) {
            log.debug("reading from the agent on {} failed: {}", host, e.toString());
        }
        finish(outcome);
    }

    /**
     * The hello in {@code line} carrying this start's nonce, wherever in the line it starts
     * (after a login's "Welcome" without a newline, say); null when there is none. A line a
     * startup file prints that merely looks like a hello lacks the nonce.
     */
    private AgentMessage.Hello hello(String line) {
        // Without the nonce there is nothing to parse: a line of many hello-like starts costs one scan.
        int last = line.lastIndexOf(nonce);
        for (int at = line.indexOf(AgentMessage.HELLO_START); at >= 0 && at < last;
                at = line.indexOf(AgentMessage.HELLO_START, at + 1)) {
            try {
                if (AgentMessage.parse(line.substring(at)) instanceof AgentMessage.Hello h && nonce.equals(h.nonce())) {
                    return h;
                }
            } catch (IllegalArgumentException e) {
                // Not a whole message from here: look further along the line.
            }
        }
        return null;
    }

    private void greeted() {
        synchronized (early) {
            if (startTimedOut) {
                return;
            }
            greeted = true;
            startTimer.dispose();
            for (String line : early) {
                shell.log().accept(host, line);
            }
            early.clear();
        }
    }

    private void readStderr(InputStream err) {
        LineReader lines = new LineReader(err, MAX_STDERR_LINE);
        try {
            String line;
            while ((line = lines.next()) != null) {
                String clean = RemoteText.sanitize(line);
                if (clean.isEmpty()) {
                    continue;
                }
                lastStderr = clean;
                synchronized (early) {
                    if (!greeted) {
                        // Kept to explain a failed start; printed if the agent does start.
                        if (early.size() == EARLY_LINES) {
                            early.removeFirst();
                        }
                        early.addLast(clean);
                        continue;
                    }
                }
                shell.log().accept(host, clean);
            }
        } catch (IOException e) {
            // The process is gone.
        }
    }

    private void finish(AgentMessage.Done outcome) {
        int exit;
        try {
            if (protocolError != null || !process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                group.kill();
            }
            exit = process.waitFor();
            stderrReader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.kill();
            exit = -1;
        }
        startTimer.dispose();
        closeStdin();
        RemoteException failure;
        if (protocolError != null) {
            failure = new RemoteException(Kind.TOOL_FAILED, host, protocolError);
        } else if (outcome != null && outcome.status() == 0) {
            failure = null;
        } else if (outcome != null) {
            failure = new RemoteException(Kind.JOB_FAILED, host, outcome.status(),
                    outcome.message() == null ? "failed with status " + outcome.status() : RemoteText.sanitize(outcome.message()),
                    outcome.failures().stream().map(RemoteText::sanitize).toList(), outcome.reportedByPeer());
        } else if (startTimedOut) {
            failure = startFailure();
        } else if (!greeted) {
            List<String> lines;
            synchronized (early) {
                lines = List.copyOf(early);
            }
            failure = classify(host, exit, lines, shell);
        } else {
            failure = new RemoteException(Kind.LOST, host, exit == 255 && shell.isSsh()
                    ? "the ssh connection was lost"
                    : "the agent ended without reporting (exit " + exit + ")"
                            + (lastStderr == null ? "" : ": " + lastStderr));
        }
        log.debug("agent on {} ended: exit {}, {}", host, exit, failure == null ? "ok" : failure.getMessage());
        if (failure == null) {
            listening.tryEmitError(new RemoteException(Kind.TOOL_FAILED, host, "the job had no receiver"));
            done.tryEmitValue(outcome);
        } else {
            hello.tryEmitError(failure);
            listening.tryEmitError(failure);
            done.tryEmitError(failure);
        }
        exited.tryEmitEmpty();
    }

    private static String lastLine(List<String> lines, String prefix) {
        return lines.isEmpty() ? "" : prefix + lines.get(lines.size() - 1) + (prefix.endsWith("(") ? ")" : "");
    }

    /**
     * Why the remote command ended before the agent said hello, from the exit status and what
     * ssh or the remote shell printed: one line with what to do.
     */
    static RemoteException classify(RemoteHost host, int exit, List<String> stderr, RemoteShell shell) {
        String said = String.join(" ", stderr);
        String lower = said.toLowerCase(Locale.ROOT);
        String quoted = lastLine(stderr, " (");
        if (exit == 255 && shell.isSsh()) {
            if (lower.contains("could not resolve hostname") || lower.contains("name or service not known")) {
                return new RemoteException(Kind.UNREACHABLE, host, "unknown host name" + quoted
                        + "; check the name, or the Host entries of your ssh configuration");
            }
            if (lower.contains("connection refused")) {
                return new RemoteException(Kind.UNREACHABLE, host, "ssh connection refused" + quoted
                        + "; check that sshd runs there and listens on the port ssh uses");
            }
            if (lower.contains("timed out")) {
                return new RemoteException(Kind.UNREACHABLE, host, "ssh connection timed out after "
                        + shell.connectTimeout().toSeconds() + " s" + quoted + "; check that the host is up and reachable");
            }
            if (lower.contains("no route to host") || lower.contains("network is unreachable")) {
                return new RemoteException(Kind.UNREACHABLE, host, "host unreachable" + quoted
                        + "; check the network path to it");
            }
            if (lower.contains("host key verification failed") || lower.contains("remote host identification has changed")) {
                return new RemoteException(Kind.HOST_KEY, host, "ssh does not trust the host key" + quoted
                        + "; connect once with 'ssh " + host.destination() + "' to check and accept it");
            }
            if (lower.contains("permission denied") || lower.contains("too many authentication failures")) {
                return new RemoteException(Kind.AUTHENTICATION, host, "ssh could not log in without a password"
                        + quoted + "; rdflux runs ssh in batch mode: set up key-based login (ssh-copy-id "
                        + host.destination() + ") or load your key into ssh-agent");
            }
            return new RemoteException(Kind.UNREACHABLE, host, "ssh failed" + quoted
                    + "; try 'ssh " + host.destination() + " true' to see why");
        }
        String tool = shell.tool();
        if (exit == 127) {
            return new RemoteException(Kind.TOOL_MISSING, host, "'" + tool + "' not found there" + quoted
                    + "; install rdma-flux on that host, or give its path with --rdflux-path");
        }
        if (exit == 126) {
            return new RemoteException(Kind.TOOL_MISSING, host, "'" + tool + "' cannot be run there" + quoted
                    + "; check the path given with --rdflux-path and its permissions");
        }
        if (exit == 64 && said.contains("--hello")) {
            return new RemoteException(Kind.TOOL_FAILED, host, "'" + tool + " agent' there does not take --hello, "
                    + "which this version gives it: install the same version on both hosts");
        }
        return new RemoteException(Kind.TOOL_FAILED, host, "'" + tool + " agent' failed to start (exit " + exit + ")"
                + quoted + "; check the rdma-flux installation there");
    }

    private Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, "agent-" + name + "-" + host);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
