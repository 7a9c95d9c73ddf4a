package io.rdmaflux.pipeline.plugin;

import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The process context a pipeline's commands run in: the environment they get and where their
 * stderr lines go. A tool's own pipeline runs in {@link #inherited()}, this process's; a warm
 * agent that serves many ssh sessions in one JVM gives each session's pipeline that session's
 * environment and stderr, since the JVM's own are the first session's (or none).
 *
 * @param environment variables added to (or replacing those of) this process's environment for
 *                    every command the pipeline starts; a command's own {@code env} wins
 * @param stderr      where commands' stderr lines go, one prefixed, sanitized line at a time;
 *                    null: this process's stderr
 */
public record ProcessContext(Map<String, String> environment, Consumer<String> stderr) {

    private static final ProcessContext INHERITED = new ProcessContext(Map.of(), null);

    public ProcessContext {
        environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
    }

    /** This process's environment and stderr: what {@code rdflux run} and a one-job agent use. */
    public static ProcessContext inherited() {
        return INHERITED;
    }

    /** The variable as commands see it: from {@link #environment()}, else this process's. */
    public String variable(String name) {
        String v = environment.get(name);
        return v != null ? v : System.getenv(name);
    }
}
