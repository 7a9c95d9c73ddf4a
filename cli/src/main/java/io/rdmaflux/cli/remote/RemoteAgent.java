package io.rdmaflux.cli.remote;

import io.rdmaflux.cli.remote.RemoteException.Kind;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
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
 * (ssh runs in one of its own, {@link AgentProcess}): SIGTERM, then SIGKILL after a grace.
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
 *
 * <p>This class is the protocol client (the hello and its nonce, the job, the messages); the
 * ssh process and the registry the tool's end waits on are {@link AgentProcess}, stderr is
 * {@link StderrCapture}, and the wording of every failure is {@link AgentFailures}.
 */
public final class RemoteAgent implements Disposable {

    private static final Logger log = Loggers.getLogger(RemoteAgent.class);

    /** How long the agent has to report its receiver's port once it has the job. */
    static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(30);
    /** How long the ssh process may take to end after stdin closed (and its start, if it was starting), before it is killed. */
    static final Duration EXIT_GRACE = Duration.ofSeconds(10);
    /** The longest version line read from an old rdflux, for a message. */
    private static final int VERSION_LINE = 200;

    private final RemoteShell shell;
    private final RemoteHost host;
    /** The ssh process and what it started (a ProxyCommand, an -e wrapper's children): ended together. */
    private final AgentProcess process;
    /** Given to the agent on its command line; only a hello carrying it counts (see {@link #hello(String)}). */
    private final String nonce;
    private final Sinks.One<AgentMessage.Hello> hello = Sinks.one();
    private final Sinks.One<AgentMessage.Listening> listening = Sinks.one();
    private final Sinks.One<AgentMessage.Done> done = Sinks.one();
    private final Sinks.Empty<Void> exited = Sinks.empty();
    private volatile boolean started;
    /** Guards the start's outcome: a hello and the start timeout, whichever comes first, decide it. */
    private final Object start = new Object();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final StderrCapture stderr;
    private final Disposable startTimer;
    private final long startDeadline;
    private volatile boolean greeted;
    private volatile boolean startTimedOut;
    private volatile long bytes;
    private volatile AgentMessage.Progress progress = new AgentMessage.Progress(0);
    private volatile String protocolError;
    private volatile Consumer<AgentMessage.Entry> entries = e -> { };
    /** Where a warm agent's hello is kept for the next calls to reach it directly; null when they cannot. */
    private final WarmRoute route;

    private RemoteAgent(RemoteShell shell, RemoteHost host, AgentProcess process, String nonce, WarmRoute route) {
        this.shell = shell;
        this.host = host;
        this.process = process;
        this.nonce = nonce;
        this.route = route;
        this.stderr = StderrCapture.start(process.stderr(), host, shell.log());
        this.startDeadline = System.nanoTime() + shell.startTimeout().toNanos();
        this.startTimer = Schedulers.parallel().schedule(this::startTimedOut,
                shell.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        Thread stdout = new Thread(() -> readStdout(process.stdout()), "agent-stdout-" + host);
        stdout.setDaemon(true);
        stdout.start();
        process.register(this);
    }

    static RemoteAgent start(RemoteShell shell, RemoteHost host) {
        String nonce = AgentMessage.newNonce();
        List<String> argv = shell.command(host, shell.agentCommand(nonce));
        WarmRoute route = WarmRoute.of(shell, host, argv);
        if (route != null) {
            AgentProcess session = route.open(shell.agentArguments(nonce));
            if (session != null) {
                log.debug("starting the agent on {}: a session of the warm agent there, through the shared ssh connection",
                        host);
                return new RemoteAgent(shell, host, session, nonce, null);
            }
        }
        log.debug("starting the agent on {}: {}", host, ShellWords.join(argv));
        try {
            RemoteAgent agent = new RemoteAgent(shell, host, AgentProcess.start(host, argv), nonce, route);
            log.debug("ssh for {} runs (pid {})", host, agent.pid());
            return agent;
        } catch (IOException e) {
            throw AgentFailures.cannotRun(host, shell, argv.get(0), e.getMessage());
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
        return hello().then(listening.asMono().timeout(LISTEN_TIMEOUT,
                Mono.error(() -> AgentFailures.noListeningPort(host, LISTEN_TIMEOUT))));
    }

    /** Tells the job's send sink where the downstream receiver listens. */
    public Mono<Void> connect(String address, int port) {
        return write(new AgentMessage.Connect(address, port));
    }

    /** Whether the job's data began to flow: its {@code started} message arrived. */
    public boolean started() {
        return started;
    }

    /**
     * The job's outcome: completes when the agent reported success, fails with a
     * {@link RemoteException}: {@link Kind#JOB_FAILED} with the agent's status when the job
     * failed, another kind when the agent never started or was lost.
     */
    public Mono<AgentMessage.Done> done() {
        return done.asMono();
    }

    /**
     * Where the entries the agent names go ({@link AgentMessage.Entry}), on the thread that reads
     * its output, one at a time: while the consumer works, the agent waits. Set before the job.
     */
    public void onEntry(Consumer<AgentMessage.Entry> consumer) {
        entries = java.util.Objects.requireNonNull(consumer, "consumer");
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
        process.endWithin(EXIT_GRACE.plusNanos(starting));
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
        AgentProcess.awaitAll(note);
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    private Mono<Void> write(AgentMessage m) {
        // The agent may be gone: done() says why once its output has been read.
        return Mono.<Void>fromRunnable(() -> process.writeLine(m.toLine())).subscribeOn(Schedulers.boundedElastic());
    }

    private void startTimedOut() {
        synchronized (start) {
            if (greeted || disposed.get() || !process.isAlive()) {
                // Disposed while starting: it already has its time to end; its end says the rest.
                return;
            }
            startTimedOut = true;
        }
        // Fail now, but let the login run to its end (see the class comment): the agent, if it
        // starts after all, sees its stdin closed and exits; its hello is ignored.
        RemoteException failure = AgentFailures.startTimedOut(host, shell, stderr.early());
        hello.tryEmitError(failure);
        listening.tryEmitError(failure);
        done.tryEmitError(failure);
        process.endWithin(EXIT_GRACE);
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
                        protocolError = AgentFailures.otherProtocol(h);
                        break;
                    }
                    protocolError = AgentFailures.otherVersion(h, ReleaseVersion.local());
                    if (protocolError != null) {
                        break;
                    }
                    greeted();
                    log.debug("agent on {} said hello", host);
                    if (route != null && h.warmSocket() != null) {
                        route.learn(h);   // a warm agent served this login's session: the next can skip the login
                    }
                    hello.tryEmitValue(h);
                    continue;
                }
                AgentMessage m;
                try {
                    if (lines.truncated()) {
                        throw new IllegalArgumentException(AgentFailures.tooLong());
                    }
                    m = AgentMessage.parse(line);
                } catch (IllegalArgumentException e) {
                    protocolError = AgentFailures.malformed(e.getMessage());
                    break;
                }
                if (m instanceof AgentMessage.Listening l) {
                    log.debug("agent on {} listens", host);
                    listening.tryEmitValue(l);
                } else if (m instanceof AgentMessage.Entry e) {
                    entries.accept(e);
                } else if (m instanceof AgentMessage.Progress p) {
                    bytes = p.bytes();
                    progress = p;
                } else if (m instanceof AgentMessage.Started) {
                    log.debug("agent on {} started its job", host);
                    started = true;
                } else if (m instanceof AgentMessage.Done d) {
                    log.debug("agent on {} reported its job done", host);
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
        synchronized (start) {
            if (startTimedOut) {
                return;
            }
            greeted = true;
            startTimer.dispose();
            stderr.release();
        }
    }

    private void finish(AgentMessage.Done outcome) {
        int exit;
        try {
            exit = process.awaitExit(protocolError != null, EXIT_GRACE);
            stderr.awaitEnd(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.kill();
            exit = -1;
        }
        startTimer.dispose();
        process.closeStdin();
        // An rdflux too old for the sizing words: its version makes the message (asked only then).
        String version = !greeted && !startTimedOut && protocolError == null && outcome == null
                && AgentFailures.refusesSizing(exit, stderr.early()) ? remoteVersion() : null;
        RemoteException failure = AgentFailures.ended(host, shell, new AgentFailures.Ending(protocolError, outcome,
                startTimedOut, greeted, exit, stderr.early(), stderr.last(), version)).orElse(null);
        log.debug("agent on {} ended: exit {}, {}", host, exit, failure == null ? "ok" : failure.getMessage());
        if (failure == null) {
            listening.tryEmitError(AgentFailures.noReceiver(host));
            done.tryEmitValue(outcome);
        } else {
            hello.tryEmitError(failure);
            listening.tryEmitError(failure);
            done.tryEmitError(failure);
        }
        exited.tryEmitEmpty();
    }

    /**
     * The first line {@code rdflux --version} prints there (the same tool the agent command
     * runs), at most {@link #VERSION_LINE} bytes; null when it says nothing within the start
     * timeout, whose end kills it with its process group.
     */
    private String remoteVersion() {
        String agent = shell.agentCommand();
        String command = agent.substring(0, agent.length() - "agent".length()) + "--version";
        List<String> run = ProcessGroup.command(shell.command(host, command));
        try {
            Process p = SshPrompts.apply(new ProcessBuilder(run)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            ProcessGroup group = ProcessGroup.of(p, run);
            p.getOutputStream().close();
            java.util.concurrent.CompletableFuture<String> line = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (InputStream out = p.getInputStream()) {
                    return new LineReader(out, VERSION_LINE).next();
                } catch (IOException e) {
                    return null;
                }
            }, Schedulers.boundedElastic()::schedule);
            if (!p.waitFor(shell.startTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                group.kill();   // its stdout closes with it, which ends the read
            }
            String said = line.get(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            p.waitFor();
            return p.exitValue() == 0 && said != null && !said.isBlank() ? said : null;
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.debug("asking {} for rdflux's version failed: {}", host, e.toString());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Why the remote command ended before the agent said hello: see {@link AgentFailures#classify}. */
    static RemoteException classify(RemoteHost host, int exit, List<String> stderr, RemoteShell shell) {
        return AgentFailures.classify(host, exit, stderr, shell);
    }
}
