package io.rdmaflux.cli.remote;

import io.rdmaflux.pipeline.config.ValueType;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the agents a coordinator starts may use, and leave, a warm agent on their host: a
 * per-user daemon that serves the next calls' sessions without a new JVM, and exits after
 * {@link #idle()} without one (docs/remote.md, "The warm agent"). The coordinator asks for it on
 * the remote command line ({@code rdflux agent --warm SECONDS [--warm-dir DIR]}), so that the
 * remote launcher tries the daemon first and the agent starts one after its job; without it the
 * agent runs and exits as it always did. {@value #ENV}={@code no} (or the tools'
 * {@code --no-warm-agent}) turns it off; a duration there sets the idle time.
 */
public final class WarmAgents {

    /** The environment variable: {@code no} turns warm agents off, a duration sets their idle time. */
    public static final String ENV = "RDFLUX_WARM_AGENT";
    /**
     * The environment variable that names the daemon's socket directory on the remote hosts
     * (default there: {@code $XDG_RUNTIME_DIR/rdflux/agent}, else {@code ~/.cache/rdflux/agent}).
     */
    public static final String DIR_ENV = "RDFLUX_WARM_AGENT_DIR";
    /** How long an idle warm agent stays by default: as long as a shared ssh connection. */
    public static final Duration DEFAULT_IDLE = Duration.ofMinutes(5);

    private static final WarmAgents OFF = new WarmAgents(Duration.ZERO, null, false);

    private final Duration idle;
    private final String dir;
    private final boolean direct;

    private WarmAgents(Duration idle, String dir, boolean direct) {
        this.idle = idle;
        this.dir = dir;
        this.direct = direct;
    }

    /** No warm agents: each call's agent is a JVM of its own that exits after its job. */
    public static WarmAgents off() {
        return OFF;
    }

    /** Warm agents idle for {@code idle}, their sockets in {@code dir} on the remote host (null: its default). */
    public static WarmAgents on(Duration idle, String dir) {
        if (idle.toSeconds() < 1) {
            throw new IllegalArgumentException("the idle time of a warm agent must be at least 1 s");
        }
        if (dir != null && !dir.startsWith("/")) {
            throw new IllegalArgumentException(DIR_ENV + " must be an absolute path, not '" + dir + "'");
        }
        return new WarmAgents(idle, dir, false);
    }

    /**
     * What {@code env} asks for: off when {@value #ENV} is {@code no} (or {@code off}, {@code 0}),
     * else on, idle for its duration or five minutes, in {@value #DIR_ENV}'s directory when set.
     *
     * @throws IllegalArgumentException when {@value #ENV} is neither {@code no}, {@code yes} nor a duration
     */
    public static WarmAgents fromEnvironment(Map<String, String> env) {
        String value = env.getOrDefault(ENV, "").strip().toLowerCase(Locale.ROOT);
        Duration idle = DEFAULT_IDLE;
        switch (value) {
            case "no", "off", "0", "false" -> {
                return OFF;
            }
            case "", "yes", "on", "true" -> { }
            default -> idle = idle(value);
        }
        String dir = env.get(DIR_ENV);
        return on(idle, dir == null || dir.isBlank() ? null : dir);
    }

    private static Duration idle(String value) {
        try {
            Duration d = ValueType.parseDuration(value);
            if (d.toSeconds() >= 1) {
                return d;
            }
        } catch (IllegalArgumentException e) {
            // told below, with the variable's name
        }
        throw new IllegalArgumentException(ENV + " must be 'no' or how long an idle warm agent stays "
                + "(5m, 90s, at least 1 s), not '" + value + "'");
    }

    /**
     * These settings, and a session may reach the host's warm agent directly through the shared
     * ssh connection when an earlier call learned where it listens ({@link WarmRoute}): no login
     * shell, remote launcher or client runs for it. For jobs that need nothing of a login's
     * environment but its home and addresses (rdcp's): the session gets the daemon's environment.
     */
    public WarmAgents direct() {
        return enabled() ? new WarmAgents(idle, dir, true) : this;
    }

    /** Whether a session may reach the warm agent through the shared ssh connection ({@link #direct()}). */
    boolean isDirect() {
        return direct;
    }

    /** The agent's arguments these settings add after {@code agent}, as words. */
    List<String> argumentWords() {
        return ShellWords.split(words());
    }

    /** Whether agents may use and leave a warm agent. */
    public boolean enabled() {
        return idle.toSeconds() > 0;
    }

    /** How long a warm agent stays without a session. */
    public Duration idle() {
        return idle;
    }

    /** The words the agent's remote command line gets, after {@code agent}: none when off. */
    String words() {
        if (!enabled()) {
            return "";
        }
        return " --warm " + idle.toSeconds() + (dir == null ? "" : " --warm-dir " + ShellWords.quote(dir));
    }

    @Override
    public String toString() {
        return enabled() ? "WarmAgents[" + idle.toSeconds() + " s" + (dir == null ? "" : ", " + dir) + "]" : "WarmAgents[off]";
    }
}
