package io.rdmaflux.cli;

import io.rdmaflux.text.RemoteText;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The log lines of a warm agent's sessions. A JVM agent's -v and --debug lines go to its
 * stderr, which ssh carries to the coordinator; the daemon's stderr is /dev/null, so each
 * session that asks for them ({@code -v}, {@code --debug}) gets them in its own stderr frames,
 * formatted as {@link Console} formats them. Logging is process-wide and a record does not say
 * whose job logged it (the work runs on shared Reactor and Netty threads), so a record goes to a
 * session only while it has had the daemon to itself since it began; once another session was
 * open beside it (or ended while it ran: that one's connections may still log as they close),
 * its records go to none (only to the daemon's own handler, whose stderr is /dev/null), so that
 * no session shows another's lines under its host's label. A session that did not ask sees none.
 */
final class WarmLogs {

    private static final String TOOL = "rdflux agent";
    /** Held here: a logger nobody references loses its level when it is collected. */
    private static final Logger OURS = Logger.getLogger("io.rdmaflux");
    private static final Logger REACTOR = Logger.getLogger("reactor");
    private static final List<Logger> CONNECTIONS = List.of(
            Logger.getLogger("io.rdmaflux.channel.FluxSender"), Logger.getLogger("io.rdmaflux.channel.FluxReceiver"));

    /** A session that asked for log lines, and how many. */
    private record Listener(PrintStream stderr, boolean debug) {

        /** Whether it gets the record: what Console lets through under -v, or under --debug. */
        boolean admits(LogRecord r) {
            int level = r.getLevel().intValue();
            if (level >= Level.WARNING.intValue()) {
                return true;
            }
            String name = r.getLoggerName() == null ? "" : r.getLoggerName();
            if (CONNECTIONS.stream().anyMatch(l -> l.getName().equals(name))) {
                return level >= Level.FINE.intValue();
            }
            boolean ours = name.equals("io.rdmaflux") || name.startsWith("io.rdmaflux.");
            if (debug) {
                return (ours || name.equals("reactor") || name.startsWith("reactor.")) && level >= Level.FINE.intValue();
            }
            return ours && level >= Level.INFO.intValue();
        }
    }

    private final Map<Object, Listener> listeners = new ConcurrentHashMap<>();
    /** The sessions open now, listening or not. */
    private final Set<Object> open = new HashSet<>();
    /** The open sessions that have not had the daemon to themselves: no record is theirs alone. */
    private final Set<Object> shared = new HashSet<>();
    private final Formatter formatter = new Formatter() {
        @Override
        public String format(LogRecord r) {
            String kind = r.getLevel() == Level.WARNING ? "warning: " : "";
            return TOOL + ": " + kind + RemoteText.sanitize(formatMessage(r), Console.MAX_MESSAGE);
        }
    };
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            Object owner = listeners.isEmpty() ? null : alone();
            Listener l = owner == null ? null : listeners.get(owner);
            if (l != null && l.admits(r)) {
                l.stderr().println(formatter.format(r));
                if (l.debug() && r.getThrown() != null) {
                    l.stderr().print(Console.trace(r.getThrown()));
                }
            }
        }

        @Override
        public void flush() {
            // Each line is flushed as it is printed (the session's stderr autoflushes).
        }

        @Override
        public void close() {
            // The sessions' streams are theirs to close.
        }
    };

    /** Starts routing: the daemon calls it once, after Console has set up its own handler. */
    WarmLogs install() {
        handler.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(handler);
        return this;
    }

    /** The session {@code key} has begun: a session already open, and this one, no longer have the daemon alone. */
    synchronized void open(Object key) {
        if (!open.isEmpty()) {
            shared.addAll(open);
            shared.add(key);
        }
        open.add(key);
    }

    /** The one session whose records these are, or null when a record may be another's. */
    private synchronized Object alone() {
        if (open.size() != 1) {
            return null;
        }
        Object only = open.iterator().next();
        return shared.contains(only) ? null : only;
    }

    /** The session {@code key} gets log lines on {@code stderr}, as -v or --debug asked (none when neither did). */
    void add(Object key, PrintStream stderr, boolean verbose, boolean debug) {
        if (verbose || debug) {
            listeners.put(key, new Listener(stderr, debug));
            levels();
        }
    }

    /** The session {@code key} has ended. */
    void remove(Object key) {
        synchronized (this) {
            open.remove(key);
            shared.remove(key);
            shared.addAll(open);
        }
        if (listeners.remove(key) != null) {
            levels();
        }
    }

    /** The loggers' levels for the sessions that listen: as loud as the loudest asked, as quiet as Console's default with none. */
    private synchronized void levels() {
        boolean any = !listeners.isEmpty();
        boolean debug = listeners.values().stream().anyMatch(Listener::debug);
        OURS.setLevel(debug ? Level.FINE : any ? Level.INFO : Level.WARNING);
        REACTOR.setLevel(debug ? Level.FINE : null);
        for (Logger l : CONNECTIONS) {
            l.setLevel(any ? Level.FINE : null);
        }
    }
}
