package io.rdmaflux.connector;

import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.error.ErrorCode;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import reactor.core.scheduler.Scheduler;

/**
 * One running command and its guard. All methods block and run on a connector's scheduler.
 * This class launches the command and holds its ends; the rest is in one class per job:
 * {@link CommandChecks} (before the start), {@link Guard} (the lifeline), {@link Termination}
 * (SIGTERM, grace, SIGKILL), {@link Linger} (after the command's exit), {@link ProcessGroup}
 * (the group's liveness) and {@link ExitText} (how messages word the end).
 *
 * <p><b>Process group.</b> The command runs through {@code setsid}, so it leads a process group
 * (and session) of its own, which everything it starts inherits: signals go to the whole group
 * ({@code sh -c 'a | b'} loses both), and no terminal signal reaches it.
 *
 * <p><b>The guard.</b> A second small process ({@link Guard}, a POSIX shell script in a
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

    /**
     * The size asked for the command's stdin and stdout pipes (Linux's {@code F_SETPIPE_SZ},
     * 1031), one chunk, instead of the kernel's 64 KiB: a command in the middle of a stream
     * ({@code rdpipe h2:cat}) then moves a chunk per wake-up rather than a sixteenth of one,
     * and its output is read in chunks of up to 1 MiB, so the channel sends a sixteenth of the
     * frames. That halved the middle hop's CPU per GiB (docs/benchmarks.md, "The 3-hop chain,
     * session 28"). Java has no call for it, so the wrapper asks perl when there is one (the
     * launchers use it too); without perl, or beyond {@code /proc/sys/fs/pipe-max-size} or the
     * user's pipe quota, the pipes stay as they were. The data in flight grows by at most this
     * much per pipe, in the kernel, and is still bounded. Perl gets the pipes as fds 3 and 4,
     * its own stdin and stdout being /dev/null: whatever it (or a shim of it) reads or prints
     * never touches the stream.
     */
    static final int PIPE_SIZE = 1 << 20;

    /**
     * $1: the file for the command's stdin, or "" to keep the pipe; then the command. Exits 125
     * when the go line does not come (the connector gave up before starting it). Before the
     * command runs, its stdin and stdout pipes are given {@link #PIPE_SIZE} bytes (see there).
     */
    static final String WRAPPER = """
            IFS= read -r go && [ "$go" = go ] || exit 125
            input=$1
            shift
            command -v perl >/dev/null 2>&1 && PERL5OPT= PERL5LIB= perl -e 'my ($i, $o); \
            open($i, "<&=", 3) and fcntl($i, 1031, %1$d); open($o, ">&=", 4) and fcntl($o, 1031, %1$d)' \
            3<&0 4>&1 </dev/null >/dev/null 2>&1
            if [ -n "$input" ]; then exec "$@" <"$input"; fi
            exec "$@"
            """.formatted(CommandProcess.PIPE_SIZE);

    /** Bounds on our own waits; the command's own work has no deadline of ours. */
    private static final Duration START = Duration.ofSeconds(10);
    private static final long STDERR_MILLIS = 5_000;

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
    private final ProcessGroup group;
    private final Guard guard;
    private final FileInputStream stdout;
    private final FileChannel stdin;
    private final StderrDrain stderr;
    private final Linger linger;
    private final Termination.GraceWait graceWait;

    private Ending ending;

    private CommandProcess(CommandLine command, CommandOptions options, Process process, ProcessGroup group,
                           Guard guard, FileInputStream stdout, FileChannel stdin, StderrDrain stderr,
                           Scheduler scheduler, Termination.GraceWait graceWait) {
        this.command = command;
        this.options = options;
        this.process = process;
        this.group = group;
        this.guard = guard;
        this.stdout = stdout;
        this.stdin = stdin;
        this.stderr = stderr;
        this.linger = new Linger(options.linger(), scheduler, stdout, command.quoted());
        this.graceWait = graceWait;
    }

    /** {@link #start(CommandLine, CommandOptions, Role, Path, Scheduler, Termination.GraceWait)} with the real grace. */
    static CommandProcess start(CommandLine command, CommandOptions options, Role role, Path input,
                                Scheduler scheduler) {
        return start(command, options, role, input, scheduler, Termination.GraceWait.REAL);
    }

    /**
     * Starts {@code command} with its guard, its stderr drained on {@code scheduler}.
     *
     * @param input     for a source, the file its stdin reads, or null for /dev/null
     * @param graceWait how {@link #stop()} waits out the grace after SIGTERM
     * @throws ConnectorException (SINK_FAILED for a sink, SOURCE_FAILED otherwise) when it
     *                            cannot be started; nothing is left running then
     */
    static CommandProcess start(CommandLine command, CommandOptions options, Role role, Path input,
                                Scheduler scheduler, Termination.GraceWait graceWait) {
        ErrorCode code = role == Role.SINK ? ErrorCode.SINK_FAILED : ErrorCode.SOURCE_FAILED;
        CommandChecks.check(command, options, code);
        String setsid = ProcessGroup.setsid().orElseThrow();

        List<String> argv = new ArrayList<>(List.of(setsid, "/bin/sh", "-c", WRAPPER, "rdflux-command",
                role == Role.SOURCE ? (input == null ? "/dev/null" : input.toString()) : ""));
        argv.addAll(command.argv(options.shell()));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(role == Role.SINK);
        if (!options.inherit()) {
            pb.environment().clear();   // a warm agent's session: its own variables, none of the daemon's
        }
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
        Guard guard = null;
        CommandProcess started = null;
        FileInputStream stdout = null;
        FileChannel stdin = null;
        FileChannel err = null;
        try {
            guard = Guard.start(setsid, process.pid(), role != Role.SOURCE, options, command.quoted());

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
            ProcessGroup group = ProcessGroup.lead(process, START);
            guard.awaitReady();
            StderrDrain drain = new StderrDrain(err, options.name() != null ? options.name() : command.defaultName(),
                    options.stderr());
            scheduler.schedule(drain);
            err = null;
            started = new CommandProcess(command, options, process, group, guard, stdout, stdin, drain, scheduler,
                    graceWait);
            process.onExit().thenRun(started.linger::start);
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
                    guard.destroy();
                }
                ProcessIo.closeQuietly(stdout);
                ProcessIo.closeQuietly(stdin);
                ProcessIo.closeQuietly(err);
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
        return linger.output(ChunkReader.sequential(stdout.getChannel(), stdout, true));
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
        guard.tell("eof");
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
        return ProcessIo.waitFor(process, timeout.toMillis()) ? OptionalInt.of(process.exitValue())
                : OptionalInt.empty();
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
        linger.stop();
        return stopOnce();
    }

    private synchronized Ending stopOnce() {
        if (ending != null) {
            return ending;
        }
        linger.cancel();
        Ending how = Termination.stop(process, guard, options.grace(), graceWait);
        ProcessIo.closeQuietly(stdin);
        ProcessIo.closeQuietly(stdout);
        if (!stderr.await(STDERR_MILLIS)) {
            // Something outside the group still holds its stderr open.
            stderr.close();
            stderr.await(STDERR_MILLIS);
        }
        guard.close();
        ending = how;
        return how;
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
        // Everything the command started stays in its group unless it left with setsid or
        // setpgid, and then the guard could not kill it either.
        boolean left = linger.awaitGroup(group);
        boolean lingered = linger.over();
        stop();
        String after = lingered ? ExitText.seconds(options.linger()) + " after it exited" : "when the stream was stopped";
        if (left) {
            throw ConnectorException.command(code, Reason.IO, 0, command.quoted() + " exited with status 0, but its "
                    + "process group was still running " + after
                    + " and was killed (to wait for a process substitution, end the command with '; wait $!')");
        }
        if (linger.cutOutput()) {
            // Held by a process that left the group (its own setsid): not ours to kill.
            throw ConnectorException.command(code, Reason.IO, 0, command.quoted() + " exited with status 0, but "
                    + "a process outside its group still held its output open " + after + "; the output was cut off");
        }
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
        return command.quoted() + " " + ExitText.describe(status) + context + (tail.isEmpty() ? "" : ": " + tail);
    }
}
