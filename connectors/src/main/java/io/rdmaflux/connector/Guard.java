package io.rdmaflux.connector;

import io.rdmaflux.text.RemoteText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A command's guard and its lifeline: a small POSIX shell script ({@link #SCRIPT}), in a session
 * of its own, that reads a pipe from this JVM and sends SIGKILL to the command's process group
 * when the pipe ends, deliberately or because this JVM died (even by SIGKILL: the kernel closes
 * the pipe then). For a sink or filter it also holds a second write end on the command's stdin,
 * which it drops only when told {@code eof}. See {@link CommandProcess} for why a guard and not
 * a parent-death signal.
 */
final class Guard {

    private static final Logger log = Loggers.getLogger(Guard.class);

    /**
     * $1: the command's process group; $2: "hold" to hold its stdin open. Reads words from the
     * lifeline: "eof" drops the hold, "term" sends SIGTERM to the group; the end of the
     * lifeline sends SIGKILL to the group.
     */
    static final String SCRIPT = """
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

    /** Bounds on our own waits for the guard. */
    private static final long START_MILLIS = 10_000;
    private static final long EXIT_MILLIS = 10_000;

    private final Process process;
    private final OutputStream lifeline;
    /** The command as messages show it, for the log. */
    private final String what;

    private Guard(Process process, String what) {
        this.process = process;
        this.lifeline = process.getOutputStream();
        this.what = what;
    }

    /**
     * Starts the guard of the process group {@code group}; it has not yet taken its hold.
     *
     * @param hold        whether it holds the command's stdin open until {@code eof}
     * @param options     the command's: its environment is the guard's too, so that whatever finds
     *                    the command by it finds its guard too
     */
    static Guard start(String setsid, long group, boolean hold, CommandOptions options, String what)
            throws IOException {
        ProcessBuilder gb = new ProcessBuilder(setsid, "/bin/sh", "-c", SCRIPT, "rdflux-guard",
                Long.toString(group), hold ? "hold" : "watch").redirectErrorStream(true);
        if (!options.inherit()) {
            gb.environment().clear();
        }
        gb.environment().putAll(options.environment());
        return new Guard(gb.start(), what);
    }

    /** Waits (bounded) until the guard has taken its hold and reads its lifeline. */
    void awaitReady() throws IOException {
        String ready = firstLine();
        if (!ready.equals("ready")) {
            throw new IOException("its guard could not start" + (ready.isEmpty() ? "" : ": " + ready));
        }
    }

    /** The guard's first line of output ("ready", or why not), waiting at most START_MILLIS. */
    private String firstLine() throws IOException {
        Disposable watchdog = Schedulers.parallel().schedule(process::destroyForcibly, START_MILLIS,
                TimeUnit.MILLISECONDS);
        try {
            InputStream in = process.getInputStream();
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

    /** Sends a word ("eof", "term") to the guard; false if it is gone. */
    boolean tell(String word) {
        try {
            lifeline.write((word + "\n").getBytes(StandardCharsets.US_ASCII));
            lifeline.flush();
            return true;
        } catch (IOException e) {
            log.warn("the guard of {} is gone ({})", what, e.toString());
            return false;
        }
    }

    /**
     * Ends the lifeline: the guard sends SIGKILL to the group, then exits. Waits (bounded) for
     * that; a guard that does not exit is killed by hand.
     */
    void end() {
        ProcessIo.closeQuietly(lifeline);
        if (!ProcessIo.waitFor(process, EXIT_MILLIS)) {
            log.warn("the guard of {} did not exit; killing what is left by hand", what);
            process.destroyForcibly();
        }
    }

    /** Kills the guard at once: only before the command ran. */
    void destroy() {
        process.destroyForcibly();
    }

    /** Closes our end of its output, once it has exited. */
    void close() {
        ProcessIo.closeQuietly(process.getInputStream());
    }
}
