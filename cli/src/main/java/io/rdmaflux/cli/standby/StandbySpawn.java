package io.rdmaflux.cli.standby;

import io.rdmaflux.cli.remote.Detached;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Starts a standby JVM for a key: this JVM's own command line (the same java, options and jar)
 * with {@code --standby KEY IDLE_SECONDS}, its environment and working directory, stdin from
 * {@code /dev/null}, stdout and stderr discarded. Detached, and not a session leader: {@code
 * setsid sh -c '"$@"; :'} puts it in a new session, as the child of that session's leader (the
 * sh, which waits for it), so no terminal's hang-up or Ctrl-C reaches it, and it can never
 * acquire a controlling terminal when it opens a client's tty. In the foreground of that sh, not
 * in its background ({@code &}): a shell without job control starts a background command with
 * SIGINT and SIGQUIT ignored, and a JVM that starts so ignores them for good, so the call's
 * Ctrl-C, which its client forwards, would do nothing. (The {@code ; :} keeps sh from exec'ing
 * the JVM in its own place, which would make the JVM the session's leader.)
 */
public final class StandbySpawn {

    /**
     * The environment variable: {@code no} turns standbys off, a duration sets their idle time;
     * any other value warns once a call ({@link #notUnderstood}) and leaves them on.
     */
    public static final String ENV = "RDFLUX_STANDBY";
    /** The key a client sets for the cold JVM it runs, so that this JVM leaves a standby for it. */
    public static final String KEY_ENV = "RDFLUX_STANDBY_KEY";
    /** How long a standby waits for a call when {@value #ENV} does not say. */
    public static final Duration DEFAULT_IDLE = Duration.ofMinutes(5);

    private StandbySpawn() {
    }

    /**
     * How long a standby waits, from {@value #ENV} in {@code env}; empty when off ({@code no},
     * {@code off}, {@code 0}, {@code false}, a duration under a second). A value not understood
     * ({@link #notUnderstood}) is the default: a start-up aid never fails a tool, and the
     * warning tells the user.
     */
    public static Optional<Duration> idle(Map<String, String> env) {
        String value = value(env);
        if (OFF.contains(value)) {
            return Optional.empty();
        }
        Duration d = duration(value);
        if (d == null) {
            return Optional.of(DEFAULT_IDLE);
        }
        return d.toSeconds() >= 1 ? Optional.of(d) : Optional.empty();
    }

    /**
     * One line (without the tool's name) saying that {@value #ENV} in {@code env} is not
     * understood, what is, and that the default applies; null when it is understood or unset.
     */
    public static String notUnderstood(Map<String, String> env) {
        String value = value(env);
        if (OFF.contains(value) || duration(value) != null) {
            return null;
        }
        return "warning: " + ENV + "=" + RemoteText.sanitize(env.get(ENV), 40) + " is not understood"
                + " (no, off, 0 or false: off; yes, on, true or a duration such as 30s or 2m: on),"
                + " so the default applies: on, a standby waits " + DEFAULT_IDLE.toMinutes() + "m";
    }

    /** The values that turn standbys off. */
    private static final Set<String> OFF = Set.of("no", "off", "0", "false");

    private static String value(Map<String, String> env) {
        return env.getOrDefault(ENV, "").strip().toLowerCase(Locale.ROOT);
    }

    /** The idle time {@code value} (not an off word) names; null when it names none. */
    private static Duration duration(String value) {
        if (value.isEmpty() || value.equals("yes") || value.equals("on") || value.equals("true")) {
            return DEFAULT_IDLE;
        }
        try {
            return ValueType.parseDuration(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * At the end of a cold run: starts a standby when {@code env} names a key ({@value #KEY_ENV}),
     * standbys are on, and the place has room; why not, or null when one was started.
     */
    public static String afterColdRun(Map<String, String> env) {
        Optional<Duration> idle = idle(env);
        StandbyPlace place = StandbyPlace.of(env, env.get(KEY_ENV));
        if (idle.isEmpty() || place == null) {
            return "off, or no key";
        }
        return start(place, idle.get());
    }

    /** Starts a standby for {@code place} when there is room; why not, or null when one was started. */
    public static String start(StandbyPlace place, Duration idle) {
        String why = place.ensure();
        if (why != null) {
            return why;
        }
        if (!place.roomForAnother()) {
            return "enough standbys wait already";
        }
        Optional<String> setsid = ProcessGroup.setsid();
        Optional<List<String>> command = command(jvmCommand(), place.key(), idle);
        if (setsid.isEmpty() || command.isEmpty()) {
            return "no setsid, or this JVM was not started with -jar";
        }
        try {
            Detached.start(new ProcessBuilder(detached(setsid.get(), command.get())));
            return null;
        } catch (IOException e) {
            return "cannot start it: " + e.getMessage();
        }
    }

    /** {@code command} run by a new session's leader, a shell that waits for it. */
    static List<String> detached(String setsid, List<String> command) {
        List<String> argv = new ArrayList<>(List.of(setsid, "/bin/sh", "-c", "\"$@\"; :", "sh"));
        argv.addAll(command);
        return argv;
    }

    /** This JVM's command line: java, then its arguments; empty when the runtime cannot tell. */
    static Optional<List<String>> jvmCommand() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        if (info.command().isEmpty() || info.arguments().isEmpty()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>();
        argv.add(info.command().get());
        argv.addAll(List.of(info.arguments().get()));
        return Optional.of(argv);
    }

    /**
     * {@code jvm} up to {@code -jar JAR}, then {@code --standby KEY SECONDS}; empty when {@code
     * jvm} is empty or has no {@code -jar JAR} (a test in-process).
     */
    static Optional<List<String>> command(Optional<List<String>> jvm, String key, Duration idle) {
        if (jvm.isEmpty()) {
            return Optional.empty();
        }
        List<String> a = jvm.get();
        int jar = a.indexOf("-jar");
        if (jar < 1 || jar + 1 >= a.size()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>(a.subList(0, jar + 2));
        argv.addAll(List.of("--standby", key, Long.toString(idle.toSeconds())));
        return Optional.of(argv);
    }
}
