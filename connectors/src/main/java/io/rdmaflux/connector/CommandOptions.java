package io.rdmaflux.connector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a command connector runs its command. Immutable; each {@code withX} returns a copy.
 * How the bytes are read or written (chunk size, buffers, scheduler) is set separately, with
 * {@link SourceOptions} or {@link SinkOptions}.
 *
 * @param directory   the command's working directory; null: this process's
 * @param shell       the shell that runs a shell command ({@code SHELL -c COMMAND}); default
 *                    {@code /bin/sh}. Argument vectors run without one.
 * @param environment variables added to (or replacing those of) this process's environment;
 *                    with {@code inherit} false, the command's whole environment
 * @param grace       how long a command has to exit after SIGTERM before its process group is
 *                    sent SIGKILL; default 5 s. The grace ends early when the command exits.
 * @param linger      how long the rest of a command's process group (a process substitution
 *                    such as {@code tee >(zfs recv ...)}, a background job) may go on running
 *                    after the command exited with status 0, before it is sent SIGKILL;
 *                    default 60 s. The linger ends early when nothing of the group is left.
 *                    Anything killed then fails the stream: the command's work was cut short.
 *                    Whatever the command's status, its output (a source's or a filter's) must
 *                    also end within the linger after it exited, or it is cut off there.
 * @param name        the name that prefixes the command's stderr lines ({@code [name] ...});
 *                    null: the base name of the command's first word, such as {@code zfs}
 * @param stderr      where the command's stderr goes, one prefixed, sanitized line at a time;
 *                    default: this process's standard error. Called on the connector's
 *                    scheduler, one line at a time.
 * @param inherit     whether the command starts from this process's environment (default);
 *                    false for a warm agent's session, whose commands must see only its own
 */
public record CommandOptions(Path directory, Path shell, Map<String, String> environment, Duration grace,
                             Duration linger, String name, Consumer<String> stderr,
                             boolean inherit) {

    private static final Consumer<String> STANDARD_ERROR = line -> System.err.println(line);
    private static final Path SH = Path.of("/bin/sh");

    /** The defaults described above. */
    public static CommandOptions defaults() {
        return new CommandOptions(null, SH, Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(60), null,
                STANDARD_ERROR, true);
    }

    public CommandOptions {
        Objects.requireNonNull(shell, "shell");
        environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative");
        }
        Objects.requireNonNull(linger, "linger");
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative");
        }
        Objects.requireNonNull(stderr, "stderr");
        if (name != null && name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
    }

    public CommandOptions withDirectory(Path v) {
        return new CommandOptions(v, shell, environment, grace, linger, name, stderr, inherit);
    }

    /** The shell for shell commands, such as {@code /bin/bash} for {@code tee >(tar x)}. */
    public CommandOptions withShell(Path v) {
        return new CommandOptions(directory, v, environment, grace, linger, name, stderr, inherit);
    }

    /** Replaces all additions with {@code v}. */
    public CommandOptions withEnvironment(Map<String, String> v) {
        return new CommandOptions(directory, shell, v, grace, linger, name, stderr, inherit);
    }

    /** Makes {@code v} the command's whole environment: nothing of this process's is inherited. */
    public CommandOptions withWholeEnvironment(Map<String, String> v) {
        return new CommandOptions(directory, shell, v, grace, linger, name, stderr, false);
    }

    /** Adds one variable to the additions. */
    public CommandOptions withEnvironment(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(environment);
        m.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return new CommandOptions(directory, shell, m, grace, linger, name, stderr, inherit);
    }

    public CommandOptions withGrace(Duration v) {
        return new CommandOptions(directory, shell, environment, v, linger, name, stderr, inherit);
    }

    /** How long the rest of the process group may run after the command exited with status 0. */
    public CommandOptions withLinger(Duration v) {
        return new CommandOptions(directory, shell, environment, grace, v, name, stderr, inherit);
    }

    public CommandOptions withName(String v) {
        return new CommandOptions(directory, shell, environment, grace, linger, v, stderr, inherit);
    }

    public CommandOptions withStderr(Consumer<String> v) {
        return new CommandOptions(directory, shell, environment, grace, linger, name, v, inherit);
    }
}
