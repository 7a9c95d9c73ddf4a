package io.rdmaflux.cli;

import io.rdmaflux.text.RemoteText;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Everything the tools say to a person goes to stderr, one line per message, prefixed with the
 * tool's name; stdout carries only data. Library logging (Reactor, Netty, DiSNI) is routed into
 * the same stream and kept quiet unless {@code -v} or {@code --debug} asks for more. Every
 * message passes {@link RemoteText#sanitize} on its way out, whatever it quotes (a peer's
 * notice, a remote host's path, a file name from a hostile tree): no line can drive the terminal.
 *
 * <p>Console owns stderr's line: a progress line ({@link #progress}) has no newline, so every
 * other message clears it first and starts on a line of its own, whoever prints it (a remote
 * end's line, a log record, the final error). After {@link #endProgress} or an error no progress
 * is drawn again: the final message stays the last line. Print to stderr through this class.
 */
final class Console {

    /** The longest message printed, in characters; longer ones are cut and end with "...". */
    static final int MAX_MESSAGE = 4000;

    private static volatile String tool = "rdflux";
    private static volatile boolean debug;
    private static final AtomicBoolean droppedHooked = new AtomicBoolean();
    /** Standard error: System.err as the process started, or the call's once {@link #useCallStreams} ran. */
    private static volatile PrintStream err = System.err;
    /** The real standard output once {@link #reserveStdout} pointed System.out elsewhere. */
    private static volatile PrintStream out;
    /** Guards stderr's line state below, and each write to stderr. */
    private static final Object LINE = new Object();
    /** Characters of the progress line now on stderr's last line; 0 when none is drawn. */
    private static int progressWidth;
    /** Whether the progress line is over: the final message may follow, no progress after it. */
    private static boolean progressOver;

    private Console() {
    }

    /** Sets the tool name and the verbosity for this process. */
    public static void configure(String toolName, boolean verbose, boolean debugMode) {
        tool = toolName;
        debug = debugMode;
        reactor.util.Loggers.useJdkLoggers();
        io.netty.util.internal.logging.InternalLoggerFactory.setDefaultFactory(
                io.netty.util.internal.logging.JdkLoggerFactory.INSTANCE);
        Logger root = Logger.getLogger("");
        for (var h : root.getHandlers()) {
            root.removeHandler(h);
        }
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (isLoggable(r)) {
                    // Through stderr's line owner: a record must not land on a progress line.
                    print(getFormatter().format(r));
                }
            }

            @Override
            public void flush() {
                err.flush();
            }

            @Override
            public void close() {
                flush();
            }
        };
        handler.setFormatter(new Formatter() {
            @Override
            public String format(LogRecord r) {
                String msg = safe(formatMessage(r));
                // As Console.warn's own lines: a warning says it is one.
                String kind = r.getLevel() == Level.WARNING ? "warning: " : "";
                StringBuilder b = new StringBuilder(tool).append(": ").append(kind).append(msg)
                        .append(System.lineSeparator());
                if (debug && r.getThrown() != null) {
                    b.append(trace(r.getThrown()));
                }
                return b.toString();
            }
        });
        Level level = debugMode ? Level.FINE : Level.WARNING;
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.WARNING);
        Logger.getLogger("io.rdmaflux").setLevel(debugMode ? Level.FINE : verbose ? Level.INFO : Level.WARNING);
        // The library logs each connection at debug level (a service's logs would drown in
        // them); the tools' -v still names each one.
        for (Logger l : CONNECTION_LOGGERS) {
            l.setLevel(debugMode || verbose ? Level.FINE : null);
        }
        if (debugMode) {
            Logger.getLogger("reactor").setLevel(level);
        }
        // An error a cancelled or finished operator can no longer pass on: the stream's outcome
        // was reported already (a chain torn down reports its cause once). Reactor would log it
        // as an ERROR line ("Operator called default onErrorDropped"), noise to the user.
        // Reactor's hooks add up, and configure runs again (the agent, once it has its job): once.
        if (droppedHooked.compareAndSet(false, true)) {
            reactor.core.publisher.Hooks.onErrorDropped(e -> Logger.getLogger("io.rdmaflux.cli")
                    .log(Level.FINE, "after the outcome, dropped: " + e, e));
        }
    }

    /** Held here: a logger nobody references loses its level when it is collected. */
    private static final List<Logger> CONNECTION_LOGGERS = List.of(
            Logger.getLogger("io.rdmaflux.channel.FluxSender"), Logger.getLogger("io.rdmaflux.channel.FluxReceiver"));

    /** A message for the person at the terminal. */
    public static void info(String message) {
        line(tool + ": " + safe(message));
    }

    /** A warning: something works, but not as it should be. */
    public static void warn(String message) {
        line(tool + ": warning: " + safe(message));
    }

    /**
     * Names each part of a partial transfer that did not arrive, one line each ({@code "path:
     * reason"}, from the peer maybe, so sanitized), and returns the failure that sums them up.
     */
    static io.rdmaflux.cli.remote.PartialTransferException notCopied(java.util.List<String> lines) {
        for (String line : lines) {
            info("not copied: " + RemoteText.sanitize(line));
        }
        // Each is named: the last line sums up instead of repeating the first.
        return new io.rdmaflux.cli.remote.PartialTransferException(lines).named();
    }

    /** One line for a failure, and the stack trace only under {@code --debug}. */
    public static void error(Throwable t) {
        synchronized (LINE) {
            line(tool + ": " + message(t));
            if (debug) {
                print(trace(t));
            }
            progressOver = true;
        }
    }

    /** One line for a failure given as text. */
    public static void error(String message) {
        synchronized (LINE) {
            line(tool + ": " + safe(message));
            progressOver = true;
        }
    }

    /** A line on stderr, as it is (the caller made it safe), on a line of its own. */
    public static void line(String text) {
        print(text + System.lineSeparator());
    }

    /**
     * A line on stdout (rdcp -v's file names, as rsync prints them), after clearing a progress
     * line drawn on stderr: on a terminal both are the same screen line.
     */
    public static void outLine(String text) {
        synchronized (LINE) {
            clearProgressLine();
            err.flush();
            PrintStream o = stdout();
            o.println(text);
            o.flush();
        }
    }

    /** Text on stderr, ending with a newline, after clearing the progress line if one is drawn. */
    private static void print(String text) {
        synchronized (LINE) {
            clearProgressLine();
            err.print(text);
            err.flush();
        }
    }

    /** Blanks the progress line drawn on stderr, if one is, and puts the cursor at its start. Holds LINE. */
    private static void clearProgressLine() {
        if (progressWidth > 0) {
            err.print("\r" + " ".repeat(progressWidth) + "\r");
            progressWidth = 0;
        }
    }

    /**
     * Draws the progress line: {@code drawn} starts with a carriage return and covers the line
     * drawn before. Nothing is drawn once the progress is over.
     */
    static void progress(String drawn) {
        synchronized (LINE) {
            if (progressOver) {
                return;
            }
            err.print(drawn);
            err.flush();
            progressWidth = Math.max(0, drawn.length() - 1);
        }
    }

    /**
     * Ends the progress for good: {@code last} (as {@link #progress} takes it), the final
     * counts, stays on its own line, unless an error was the last word already; no progress
     * line is drawn after this.
     */
    static void endProgress(String last) {
        synchronized (LINE) {
            if (progressOver) {
                return;
            }
            progressOver = true;
            err.print(last);
            err.println();
            err.flush();
            progressWidth = 0;
        }
    }

    /** One line that a terminal shows as text and obeys in nothing (the one rule of {@link RemoteText}). */
    private static String safe(String message) {
        return RemoteText.sanitize(message, MAX_MESSAGE);
    }

    /** A stack trace for --debug, each line sanitized as messages are (its messages may quote a peer), its indent kept. */
    static String trace(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        StringBuilder b = new StringBuilder();
        w.toString().lines().forEach(line -> {
            int indent = 0;
            while (indent < line.length() && (line.charAt(indent) == '\t' || line.charAt(indent) == ' ')) {
                indent++;
            }
            b.append(line, 0, indent).append(safe(line.substring(indent))).append(System.lineSeparator());
        });
        return b.toString();
    }

    /** Whether --debug is on. */
    public static boolean debug() {
        return debug;
    }

    /**
     * Keeps standard output for data: from now on System.out, which a plugin or a library may
     * print to, is stderr. Data is written to file descriptor 1 directly (StdoutSink, the
     * agent's protocol); text meant for stdout (help, listings) goes through {@link #stdout()}.
     * Called once, at the start of a tool's process.
     */
    static synchronized void reserveStdout() {
        if (out == null) {
            out = System.out;
            System.setOut(err);
        }
    }

    /**
     * Takes System.err and System.out as they are now for stderr and stdout: a standby JVM
     * sets them to its call's streams after this class was loaded (its warm-up), before the
     * call runs. A cold run never calls it.
     */
    static synchronized void useCallStreams() {
        err = System.err;
        out = null;
    }

    /** Standard output for text the user asked for (help, listings), whatever System.out is now. */
    public static PrintStream stdout() {
        PrintStream o = out;
        return o != null ? o : System.out;
    }

    /**
     * The raw stderr stream, past the line owner: only for text printed before any progress
     * line can be drawn (a plugin's load errors). Messages go through {@link #info},
     * {@link #warn}, {@link #error} or {@link #line}, which clear the progress line first.
     */
    public static PrintStream stderr() {
        return err;
    }

    /** A failure's message without exception class names, on one line. */
    static String message(Throwable t) {
        Throwable e = reactor.core.Exceptions.unwrap(t);
        java.util.List<Throwable> parts = reactor.core.Exceptions.unwrapMultiple(e);
        if (parts.size() > 1) {
            e = parts.get(0);
        }
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            m = e.getClass().getSimpleName();
        }
        if (!(e instanceof io.rdmaflux.error.RdmaFluxException) && !(e instanceof IllegalArgumentException)
                && !(e instanceof UsageException)   // an agent's job refused as the tools refuse options
                && !(e instanceof io.rdmaflux.cli.remote.RemoteException)
                && !(e instanceof io.rdmaflux.cli.remote.PartialTransferException)
                && !(e instanceof io.rdmaflux.pipeline.config.ConfigException)
                && !(e instanceof io.rdmaflux.pipeline.config.InvalidOptionException) && !(e instanceof SegmentFailure)) {
            m = "internal error: " + m + (debug ? "" : " (run with --debug for details)");
        }
        return safe(m);
    }
}
