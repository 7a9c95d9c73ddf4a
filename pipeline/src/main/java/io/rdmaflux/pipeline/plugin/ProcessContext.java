package io.rdmaflux.pipeline.plugin;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The process context a pipeline's commands run in: the environment they get and where their
 * stderr lines go. A tool's own pipeline runs in {@link #inherited()}, this process's; a warm
 * agent that serves many ssh sessions in one JVM gives each session's pipeline that session's
 * whole environment ({@link #session}) and stderr, since the JVM's own are those of the session
 * that started it, which a later session must not see.
 *
 * @param environment with {@code whole}: the complete environment; otherwise variables added to
 *                    (or replacing those of) this process's environment. A command's own
 *                    {@code env} wins.
 * @param stderr      where commands' stderr lines go, one prefixed, sanitized line at a time;
 *                    null: this process's stderr
 * @param whole       whether {@code environment} is all there is (nothing of this process's)
 */
public record ProcessContext(Map<String, String> environment, Consumer<String> stderr, boolean whole) {

    private static final ProcessContext INHERITED = new ProcessContext(Map.of(), null, false);

    public ProcessContext {
        environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
    }

    /** {@code environment} over this process's. */
    public ProcessContext(Map<String, String> environment, Consumer<String> stderr) {
        this(environment, stderr, false);
    }

    /** A warm agent's session: exactly {@code environment}, none of this process's variables. */
    public static ProcessContext session(Map<String, String> environment, Consumer<String> stderr) {
        return new ProcessContext(environment, stderr, true);
    }

    /** This process's environment and stderr: what {@code rdflux run} and a one-job agent use. */
    public static ProcessContext inherited() {
        return INHERITED;
    }

    /** The variable as commands see it: from {@link #environment()}, else (unless whole) this process's. */
    public String variable(String name) {
        String v = environment.get(name);
        return v != null || whole ? v : System.getenv(name);
    }

    /** The whole environment commands see. */
    public Map<String, String> view() {
        if (whole) {
            return environment;
        }
        if (environment.isEmpty()) {
            return System.getenv();
        }
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(environment);
        return env;
    }
}
