package io.rdmaflux.cli.remote;

import io.rdmaflux.pipeline.config.ValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * ssh connection sharing for the agents' control channel: the first ssh to a host becomes a
 * master ({@code ControlMaster=auto}) that stays in the background for a few idle minutes
 * ({@code ControlPersist}), and later calls to that host run their session through it, with no
 * new TCP connection, key exchange or login. The masters' sockets live in a private directory
 * of this user ({@code $XDG_RUNTIME_DIR/rdflux/ssh}, else {@code ~/.cache/rdflux/ssh}, mode
 * 0700), one per host, port and user ({@code %C}).
 *
 * <p>ssh itself keeps it safe: two calls racing to be master leave one master and one plain
 * connection; a socket whose master died is removed by the next call, which becomes master; a
 * master whose connection closed exits. A directory that is not this user's alone (another
 * owner, group or other permission bits, a symbolic link) is never used: the call then does not
 * share. {@value #ENV}={@code no} (or the tools' {@code --no-ssh-share}) turns sharing off; a
 * duration there sets how long an idle master stays.
 */
public final class SshSharing {

    /** The environment variable: {@code no} turns sharing off, a duration sets the idle time of a master. */
    public static final String ENV = "RDFLUX_SSH_SHARE";
    /** How long an idle master stays by default. */
    public static final Duration DEFAULT_PERSIST = Duration.ofMinutes(5);
    /** The longest socket directory: a unix socket's path is at most 107 bytes; ssh adds 41 (/%C) and, while it binds, 17 more (a dot and 16 random characters). */
    private static final int MAX_DIR_LENGTH = 49;

    /** Paths ssh takes as they are in a ControlPath option. */
    private static final Pattern PLAIN_PATH = Pattern.compile("[A-Za-z0-9/._+,:@=-]+");

    private static final SshSharing OFF = new SshSharing(null, Duration.ZERO);

    private final Path dir;
    private final Duration persist;

    private SshSharing(Path dir, Duration persist) {
        this.dir = dir;
        this.persist = persist;
    }

    /** No sharing: each ssh makes its own connection. */
    public static SshSharing off() {
        return OFF;
    }

    /**
     * Sharing through masters whose sockets are in {@code dir} (made 0700 when missing), each
     * staying {@code persist} once idle.
     */
    public static SshSharing in(Path dir, Duration persist) {
        if (persist.toSeconds() < 1) {
            throw new IllegalArgumentException("the idle time of a shared ssh connection must be at least 1 s");
        }
        return new SshSharing(dir.toAbsolutePath().normalize(), persist);
    }

    /**
     * What {@code env} asks for: off when {@value #ENV} is {@code no} (or {@code off}, {@code 0}),
     * else sharing under {@code $XDG_RUNTIME_DIR/rdflux/ssh} or {@code $HOME/.cache/rdflux/ssh}
     * (off when neither is set), idle for {@value #ENV}'s duration or five minutes.
     *
     * @throws IllegalArgumentException when {@value #ENV} is neither {@code no}, {@code yes} nor a duration
     */
    public static SshSharing fromEnvironment(Map<String, String> env) {
        String value = env.getOrDefault(ENV, "").strip().toLowerCase(Locale.ROOT);
        Duration persist = DEFAULT_PERSIST;
        switch (value) {
            case "no", "off", "0", "false" -> {
                return OFF;
            }
            case "", "yes", "on", "true" -> { }
            default -> persist = persist(value);
        }
        Path dir = PrivateDirectory.userPlace(env, "ssh");
        return dir == null ? OFF : in(dir, persist);
    }

    private static Duration persist(String value) {
        try {
            Duration d = ValueType.parseDuration(value);
            if (d.toSeconds() >= 1) {
                return d;
            }
        } catch (IllegalArgumentException e) {
            // told below, with the variable's name
        }
        throw new IllegalArgumentException(ENV + " must be 'no' or how long an idle shared ssh connection stays "
                + "(5m, 90s, at least 1 s), not '" + value + "'");
    }

    /** The refusals told in this process. */
    private static final java.util.Set<String> TOLD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Whether calls share connections at all. */
    public boolean enabled() {
        return dir != null;
    }

    /** The directory of the masters' sockets (null when off). */
    public Path dir() {
        return dir;
    }

    /** How long an idle master stays. */
    public Duration persist() {
        return persist;
    }

    /**
     * The ssh options that share the connection, after the private directory was made or found
     * private; none when off or when the directory is not private (then {@code refused} is told why).
     */
    List<String> options(Consumer<String> refused) {
        if (dir == null) {
            return List.of();
        }
        String why = ensurePrivate();
        if (why != null) {
            // Once per process: a call starts several ssh commands (an install, the agents), and
            // the reason is this host's directory, the same for each of them.
            if (TOLD.add(why)) {
                refused.accept("not sharing the ssh connection: " + why);
            }
            return List.of();
        }
        return List.of("-o", "ControlMaster=auto", "-o", "ControlPath=" + dir + "/%C",
                "-o", "ControlPersist=" + persist.toSeconds());
    }

    /** Makes the directory (0700) if missing; null when it is this user's alone, else why not. */
    private String ensurePrivate() {
        if (dir.toString().length() > MAX_DIR_LENGTH) {
            return dir + " is too long a path for ssh's control sockets";
        }
        if (!PLAIN_PATH.matcher(dir.toString()).matches()) {
            // ssh splits its option values at spaces and expands % and ~ in ControlPath
            return dir + " holds characters ssh would read in a ControlPath";
        }
        return PrivateDirectory.ensure(dir);
    }

    @Override
    public String toString() {
        return dir == null ? "SshSharing[off]" : "SshSharing[" + dir + ", " + persist.toSeconds() + " s]";
    }
}
