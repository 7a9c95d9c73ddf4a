package io.rdmaflux.connector;

import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.RemoteText;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One running command and its guard. All methods block and run on a connector's scheduler.
 *
 * <p><b>Process group.</b> The command runs through {@code setsid}, so it leads a process group
 * (and session) of its own, which everything it starts inherits: signals go to the whole group
 * ({@code sh -c 'a | b'} loses both), and no terminal signal reaches it.
 *
 * <p><b>The guard.</b> A second small process ({@link #GUARD}, a POSIX shell script in a
 * session of its own) reads a lifeline pipe from this JVM and kills the command's group with
 * SIGKILL when the lifeline ends: when the connector is done, and also when this JVM dies,
 * even by SIGKILL, since the kernel closes the pipe then. For a sink or filter command it also holds a
 * second write end on the command's stdin, opened through {@code /proc/PID/fd/0}, which it
 * drops only when told {@code eof}: so the command can see the end of its input only when the
 * stream's END was verified. If this JVM dies instead, the command's stdin keeps a writer
 * until the guard has sent SIGKILL to the group, and a process with SIGKILL pending never runs
 * again: nothing in the group can mistake the death for a clean end of input. (A parent-death
 * signal, {@code PR_SET_PDEATHSIG}, cannot promise that: it reaches only the direct child, is
 * tied to the thread that spawned it, is cleared by set-user-ID programs such as sudo, and
 * races the closing of the JVM's pipe ends, which the kernel may do first; measured with
 * {@code setpriv --pdeathsig KILL sh -c 'cat > part; touch done'}, {@code done} appeared in
 * 13 of 100 runs whose JVM was killed with SIGKILL.)
 *
 * <p><b>Start-up.</b> The command's wrapper ({@link #WRAPPER}) waits for a {@code go} line on
 * its stdin before it executes the command. Until then, while it is still our own shell,
 * this JVM opens the command's pipes through {@code /proc/PID/fd} (its own channels, read and
 * written directly into the chunks' buffers, and never drained behind our back by the JDK's
 * process reaper) and the guard takes its hold on stdin; so the command never runs unguarded,
 * even when it is set-user-ID.
 *
 * <p><b>The end.</b> When the command exited by itself with status 0, {@link #finish} lets the
 * rest of its group finish its work, as bash alone and ssh (which waits for the end of its
 * output) would: a process substitution such as {@code tee >(zfs recv ...)} often outlives
 * the command. It waits while any process of the group is alive, up to
 * {@link CommandOptions#linger()} after the command exited, then kills what is left, and
 * that fails the stream. On every other path (a failed command, a failed or cancelled stream)
 * {@link #stop()} kills the group at once.
 *
 * <p><b>The linger is counted from the command's exit</b>, whatever its status, and bounds
 * the reading of its output too: a background job that still holds the command's stdout
 * ({@code sh -c 'sleep 600 & echo hi'}) would otherwise keep the read waiting as long as it
 * runs, before the output ends and {@link #finish} is even called. When the linger runs out
 * and the output has not ended, our end of it is closed ({@link #output()} then ends), and
 * {@link #finish} fails the stream.
 */
final class CommandProcess {

    private static final Logger log = Loggers.getLogger(CommandProcess.class);

    /**
     * $1: the file for the command's stdin, or "" to keep the pipe; then the command. Exits 125
     * when the go line does not come (the connector gave up before starting it).
     */
    static final String WRAPPER = """
            IFS= read -r go && [ "$go" = go ] || exit 125
            input=$1
            shift
            if [ -n "$input" ]; then exec "$@" <"$input"; fi
            exec "$@"
            """;

    /**
     * $1: the command's process group; $2: "hold" to hold its stdin open. Reads words from the
     * lifeline: "eof" drops the hold, "term" sends SIGTERM to the group; the end of the
     * lifeline sends SIGKILL to the group.
     */
    static final String GUARD = """
            pg=$1
            if [ "$2" = hold ]; then exec 3>"/proc/$pg/fd/0"; fi
            echo ready
            while IFS= read -r word; do
              case $word in
                eof) exec 3>&- ;;
                term) kill -s TERM -- "-$pg" 2>/dev/null ;;
              esac
            done
            kill -s KILL -- "-$pg" 2>/dev/null
            """;

    /** Bounds on our own waits; the command's own work has no deadline of ours. */
    private static final long START_MILLIS = 10_000;
    private static final long EXIT_MILLIS = 10_000;
    private static final long STDERR_MILLIS = 5_000;

    private static final Path PROC = Path.of("/proc");
    private static final String SETSID = find("setsid", "/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid");

    /** What the connector does with the command's output and input. */
    enum Role {
        /** Reads its stdout; its stderr is drained; its stdin is /dev/null or a file. */
        SOURCE,
        /** Writes its stdin; its stdout and stderr are drained together. */
        SINK,
        /** Writes its stdin and reads its stdout; its stderr is drained. */
        FILTER
    }

    /** How {@link #stop()} found or left the command. */
    enum Ending {
        /** It had exited by itself. */
        EXITED,
        /** It exited after SIGTERM, within the grace period. */
        TERMINATED,
        /** It was sent SIGKILL after the grace period. */
        KILLED
    }

    private final CommandLine command;
    private final CommandOptions options;
    private final Process process;
    private final Process guard;
    private final OutputStream lifeline;
    private final FileInputStream stdout;
    private final FileChannel stdin;
    private final StderrDrain stderr;

    private final Scheduler scheduler;

    private Ending ending;
    /** Set by {@link #stop()} before it takes the lock: ends a linger at once. */
    private volatile boolean stopping;
    /** The linger after the command's exit ran out. */
    private volatile boolean lingerOver;
    /** The command's output ended by itself (a source's or a filter's). */
    private volatile boolean outputEnded;
    /** Our end of its output was closed because the linger ran out before the output ended. */
    private volatile boolean outputCut;
    private volatile Disposable lingerTimer;

    private CommandProcess(CommandLine command, CommandOptions options, Process process, Process guard,
                           FileInputStream stdout, FileChannel stdin, StderrDrain stderr, Scheduler scheduler) {
        this.command = command;
        this.options = options;
        this.process = process;
        this.guard = guard;
        this.lifeline = guard.getOutputStream();
        this.stdout = stdout;
        this.stdin = stdin;
        this.stderr = stderr;
        this.scheduler = scheduler;
    }

    /**
     * Starts {@code command} with its guard, its stderr drained on {@code scheduler}.
     *
     * @param input for a source, the file its stdin reads, or null for /dev/null
     * @throws ConnectorException (SINK_FAILED for a sink, SOURCE_FAILED otherwise) when it
     *                            cannot be started; nothing is left running then
     */
    static CommandProcess start(CommandLine command, CommandOptions options, Role role, Path input,
                                Scheduler scheduler) {
        ErrorCode code = role == Role.SINK ? ErrorCode.SINK_FAILED : ErrorCode.SOURCE_FAILED;
        checkPlatform(command, code);
        if (options.directory() != null && !Files.isDirectory(options.directory())) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted()
                    + ": working directory " + options.directory() + " does not exist", null);
        }
        command.checkRunnable(options.environment().getOrDefault("PATH", System.getenv("PATH")),
                options.directory(), code);
        if (command.shell() && !Files.isExecutable(options.shell())) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted() + ": its shell "
                    + options.shell() + " is not an executable file", null);
        }

        List<String> argv = new ArrayList<>(List.of(SETSID, "/bin/sh", "-c", WRAPPER, "rdflux-command",
                role == Role.SOURCE ? (input == null ? "/dev/null" : input.toString()) : ""));
        argv.addAll(command.argv(options.shell()));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(role == Role.SINK);
        pb.environment().putAll(options.environment());
        if (options.directory() != null) {
            pb.directory(options.directory().toFile());
        }
        Process process;
        try {
            process = pb.start();
        } catch (IOException | RuntimeException e) {
            throw cannotRun(command, code, e);
        }
        Process guard = null;
        CommandProcess started = null;
        FileInputStream stdout = null;
        FileChannel stdin = null;
        FileChannel err = null;
        try {
            ProcessBuilder gb = new ProcessBuilder(SETSID, "/bin/sh", "-c", GUARD, "rdflux-guard",
                    Long.toString(process.pid()), role == Role.SOURCE ? "watch" : "hold").redirectErrorStream(true);
            // The same environment, so that whatever finds the command by it finds its guard too.
            gb.environment().putAll(options.environment());
            guard = gb.start();

            Path fds = Path.of("/proc", Long.toString(process.pid()), "fd");
            if (role == Role.SOURCE) {
                stdout = new FileInputStream(fds.resolve("1").toFile());
                err = FileChannel.open(fds.resolve("2"), StandardOpenOption.READ);
                process.getInputStream().close();
                process.getErrorStream().close();
            } else if (role == Role.SINK) {
                stdin = FileChannel.open(fds.resolve("0"), StandardOpenOption.WRITE);
                err = FileChannel.open(fds.resolve("1"), StandardOpenOption.READ);
                process.getInputStream().close();
            } else {
                stdin = FileChannel.open(fds.resolve("0"), StandardOpenOption.WRITE);
                stdout = new FileInputStream(fds.resolve("1").toFile());
                err = FileChannel.open(fds.resolve("2"), StandardOpenOption.READ);
                process.getInputStream().close();
                process.getErrorStream().close();
            }
            awaitOwnGroup(process);
            String ready = firstLine(guard);
            if (!ready.equals("ready")) {
                throw new IOException("its guard could not start" + (ready.isEmpty() ? "" : ": " + ready));
            }
            StderrDrain drain = new StderrDrain(err, options.name() != null ? options.name() : command.defaultName(),
                    options.stderr());
            scheduler.schedule(drain);
            err = null;
            started = new CommandProcess(command, options, process, guard, stdout, stdin, drain, scheduler);
            process.onExit().thenRun(started::startLinger);
            OutputStream go = process.getOutputStream();
            go.write("go\n".getBytes(StandardCharsets.US_ASCII));
            go.close();
            return started;
        } catch (IOException | RuntimeException e) {
            if (started != null) {
                started.stop();
            } else {
                // The command has not run: the wrapper is still waiting for its go line.
                process.destroyForcibly();
                if (guard != null) {
                    guard.destroyForcibly();
                }
                closeQuietly(stdout);
                closeQuietly(stdin);
                closeQuietly(err);
            }
            throw cannotRun(command, code, e);
        }
    }

    private static ConnectorException cannotRun(CommandLine command, ErrorCode code, Exception e) {
        return new ConnectorException(code, IoErrors.classify(e), "cannot run " + command.quoted() + ": "
                + IoErrors.text(e), e);
    }

    /**
     * The reader of the command's stdout (a source's or a filter's). It ends at the end of the
     * output, or when the linger after the command's exit ran out first (see {@link #finish}).
     */
    ChunkReader output() {
        ChunkReader in = ChunkReader.sequential(stdout.getChannel(), stdout, true);
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

    /** The command's stdin (a sink's or a filter's). */
    FileChannel stdin() {
        return stdin;
    }

    /** The command as messages show it. */
    String quoted() {
        return command.quoted();
    }

    /**
     * Gives the command the end of its input: closes our write end, then tells the guard to
     * drop its own. Call only when the whole stream has been verified.
     */
    synchronized void closeInput() throws IOException {
        if (ending != null) {
            throw new IOException("the command was stopped");
        }
        stdin.close();
        tell("eof");
    }

    /** Waits for the command to exit, however long its work takes; returns its status. */
    int awaitExit() throws InterruptedIOException {
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + command.quoted());
        }
    }

    /** Waits up to {@code timeout} for the command to exit; its status, or empty if it still runs. */
    OptionalInt awaitExit(Duration timeout) {
        return waitFor(process, timeout.toMillis()) ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
    }

    /**
     * Stops everything, once, and waits (bounded) until it has: a command still running gets
     * SIGTERM (the whole group) and, if it is still running after the grace period, SIGKILL;
     * then anything left in its group is killed, the guard exits, and stderr is drained to its
     * end. A sink command stopped here never saw the end of its input, unless
     * {@link #closeInput()} came first. Safe to call from several threads; later calls wait
     * for the first and return what it found.
     */
    Ending stop() {
        stopping = true;
        return stopOnce();
    }

    private synchronized Ending stopOnce() {
        if (ending != null) {
            return ending;
        }
        Disposable timer = lingerTimer;
        if (timer != null) {
            timer.dispose();
        }
        Ending how = Ending.EXITED;
        if (process.isAlive()) {
            if (!tell("term")) {
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
            }
            how = waitFor(process, options.grace().toMillis()) ? Ending.TERMINATED : Ending.KILLED;
        }
        // The end of the lifeline: the guard sends SIGKILL to the group, then exits.
        closeQuietly(lifeline);
        if (!waitFor(guard, EXIT_MILLIS)) {
            log.warn("the guard of {} did not exit; killing what is left by hand", command.quoted());
            guard.destroyForcibly();
        }
        if (!waitFor(process, EXIT_MILLIS)) {
            // Only when the guard failed: kill what can still be found, before our end of
            // stdin is closed below.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            waitFor(process, EXIT_MILLIS);
        }
        closeQuietly(stdin);
        closeQuietly(stdout);
        if (!stderr.await(STDERR_MILLIS)) {
            // Something outside the group still holds its stderr open.
            stderr.close();
            stderr.await(STDERR_MILLIS);
        }
        closeQuietly(guard.getInputStream());
        ending = how;
        return how;
    }

    /**
     * Runs when the command exited (on the JDK's process reaper): the linger starts. Its end
     * is a task on the connector's scheduler, where the reads and waits run too.
     */
    private void startLinger() {
        if (stopping) {
            return;
        }
        try {
            lingerTimer = scheduler.schedule(this::endLinger, options.linger().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // The scheduler is shut down: end the linger now rather than never.
            log.debug("cannot time the linger of {} ({})", command.quoted(), e.toString());
            endLinger();
        }
    }

    /** The linger ran out: a read of the output still waiting is ended by closing our end. */
    private void endLinger() {
        lingerOver = true;
        if (stdout != null && !outputEnded && !stopping) {
            outputCut = true;
            closeQuietly(stdout);
        }
    }

    /**
     * Ends a command that exited by itself with status 0: waits while any process of its group
     * is still running, until {@link CommandOptions#linger()} after the command's exit (or
     * until {@link #stop()} is called), then stops everything as {@link #stop()} does.
     *
     * @param code the code of the failure
     * @throws ConnectorException (reason IO, exit status 0) when something of the group was
     *                            still running, and so was killed, or held the command's output
     *                            open past the linger: its work was cut short
     */
    void finish(ErrorCode code) {
        long pause = 1;
        boolean left = groupAlive();
        while (left && !stopping && !lingerOver && !Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pause = Math.min(2 * pause, 100);
            left = groupAlive();
        }
        boolean lingered = lingerOver;
        stop();
        String after = lingered ? seconds(options.linger()) + " after it exited" : "when the stream was stopped";
        if (left) {
            throw ConnectorException.command(code, Reason.IO, 0, command.quoted() + " exited with status 0, but its "
                    + "process group was still running " + after
                    + " and was killed (to wait for a process substitution, end the command with '; wait $!')");
        }
        // A read that ended with -1 saw the real end (our close makes it throw instead): the
        // linger may have run out just after it, and cut nothing.
        if (outputCut && !outputEnded) {
            // Held by a process that left the group (its own setsid): not ours to kill.
            throw ConnectorException.command(code, Reason.IO, 0, command.quoted() + " exited with status 0, but "
                    + "a process outside its group still held its output open " + after + "; the output was cut off");
        }
    }

    /**
     * Whether a process of the command's group is still alive (a zombie is not: only its
     * parent, init or a subreaper, has yet to reap it). Everything the command started stays in
     * its group unless it left with setsid or setpgid, and then the guard could not kill it
     * either.
     */
    private boolean groupAlive() {
        String group = Long.toString(process.pid());
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC,
                p -> Character.isDigit(p.getFileName().toString().charAt(0)))) {
            for (Path p : procs) {
                String[] stat;
                try {
                    stat = stat(p);
                } catch (IOException | RuntimeException e) {
                    continue;   // it has just exited
                }
                if (stat[2].equals(group) && !stat[0].equals("Z") && !stat[0].equals("X")) {
                    return true;
                }
            }
        } catch (IOException e) {
            log.warn("cannot list the processes of {} ({})", command.quoted(), e.toString());
        }
        return false;
    }

    /** The fields of /proc/PID/stat after "(comm)": state, ppid, pgrp, ... */
    private static String[] stat(Path proc) throws IOException {
        String s = Files.readString(proc.resolve("stat"));
        return s.substring(s.lastIndexOf(')') + 2).split(" ");
    }

    /** "5 s", "500 ms". */
    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The command's exit status; only after it exited. */
    int exitStatus() {
        return process.exitValue();
    }

    /**
     * A one-line failure message: the command, how it ended, and its last stderr lines. Call
     * after {@link #stop()}, so that stderr has been read to its end.
     */
    String failure(int status, String context) {
        String tail = stderr.tail();
        return command.quoted() + " " + describe(status) + context + (tail.isEmpty() ? "" : ": " + tail);
    }

    /** "exited with status 3", "was killed by signal 9 (KILL)". */
    static String describe(int status) {
        if (status > 128 && status <= 128 + 64) {
            int signal = status - 128;
            String name = signal < SIGNALS.length ? SIGNALS[signal] : null;
            return "was killed by signal " + signal + (name != null ? " (" + name + ")" : "");
        }
        return "exited with status " + status + switch (status) {
            case 126 -> " (not executable)";
            case 127 -> " (command not found)";
            default -> "";
        };
    }

    private static final String[] SIGNALS = {null, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE",
        "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM"};

    /** Sends a word to the guard; false if it is gone. */
    private boolean tell(String word) {
        try {
            lifeline.write((word + "\n").getBytes(StandardCharsets.US_ASCII));
            lifeline.flush();
            return true;
        } catch (IOException e) {
            log.warn("the guard of {} is gone ({})", command.quoted(), e.toString());
            return false;
        }
    }

    /**
     * Waits until {@code setsid} has made the command a process group leader: from then on
     * "-PID" names its group.
     */
    private static void awaitOwnGroup(Process process) throws IOException {
        Path proc = PROC.resolve(Long.toString(process.pid()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MILLIS);
        for (;;) {
            if (Long.parseLong(stat(proc)[2]) == process.pid()) {
                return;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IOException("setsid did not give it a process group of its own");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while starting");
            }
        }
    }

    /** The guard's first line of output ("ready", or why not), waiting at most START_MILLIS. */
    private static String firstLine(Process guard) throws IOException {
        Disposable watchdog = Schedulers.parallel().schedule(guard::destroyForcibly, START_MILLIS, TimeUnit.MILLISECONDS);
        try {
            InputStream in = guard.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0 && b != '\n' && line.size() < 1000) {
                line.write(b);
            }
            return RemoteText.sanitize(line.toString(StandardCharsets.UTF_8), 300);
        } finally {
            watchdog.dispose();
        }
    }

    private static void checkPlatform(CommandLine command, ErrorCode code) {
        String missing = SETSID == null ? "setsid (util-linux) is not installed"
                : !Files.isDirectory(Path.of("/proc/self/fd")) ? "/proc is not mounted (commands need Linux)"
                : !Files.isExecutable(Path.of("/bin/sh")) ? "/bin/sh is missing" : null;
        if (missing != null) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted() + ": " + missing, null);
        }
    }

    private static String find(String name, String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    private static boolean waitFor(Process p, long millis) {
        try {
            return p.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // Closing is all that is left to do.
            }
        }
    }
}
