package io.rdmaflux.pipeline.builtin;

import static io.rdmaflux.pipeline.config.OptionSpec.optional;

import io.rdmaflux.connector.CommandOptions;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/** The options the command source, filter and sink share: what to run, and how. */
final class CommandSettings {

    /** The {@code shell} value that means the user's own shell, as ssh runs a remote command. */
    static final String LOGIN = "login";

    static final OptionSpec<String> COMMAND = optional("command", ValueType.string(), null,
            "The command, run by the shell (shell -c COMMAND); give command or argv.");
    static final OptionSpec<List<String>> ARGV = optional("argv", ValueType.list(ValueType.string()), null,
            "The program (found on the PATH) and its arguments, run without a shell; give command or argv.");
    static final OptionSpec<String> SHELL = optional("shell", ValueType.string(), "/bin/sh",
            "The shell that runs command: a path, or 'login' for the user's shell ($SHELL, as ssh runs a remote "
                    + "command; /bin/sh when unset).");
    static final OptionSpec<Path> DIRECTORY = optional("directory", ValueType.path(), null,
            "The command's working directory (default: the tool's).");
    static final OptionSpec<List<String>> ENV = optional("env", ValueType.list(ValueType.string()), null,
            "Variables added to the command's environment, each NAME=VALUE.");
    static final OptionSpec<Duration> GRACE = optional("grace", ValueType.duration(), Duration.ofSeconds(5),
            "How long the command has to exit after SIGTERM (when the stream fails) before its process group gets "
                    + "SIGKILL.");
    static final OptionSpec<Duration> LINGER = optional("linger", ValueType.duration(), Duration.ofSeconds(60),
            "How long what the command started in its process group (a process substitution such as tee >(zfs recv "
                    + "...), a background job) may go on running after the command exited with status 0, and, whatever "
                    + "its status, hold its output open; what is still running then is killed and fails the stream.");
    static final OptionSpec<String> NAME = optional("name", ValueType.string(), null,
            "The prefix of the command's stderr lines, [NAME] ... (default: the program's name).");

    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);

    private CommandSettings() {
    }

    /** command, argv, shell, directory, env, grace, linger, name. */
    static List<OptionSpec<?>> common() {
        return List.of(COMMAND, ARGV, SHELL, DIRECTORY, ENV, GRACE, LINGER, NAME);
    }

    /** Exactly one of command and argv; a usable shell, directory and environment. */
    static void validate(OptionValues v) {
        if (v.isSet(COMMAND) == v.isSet(ARGV)) {
            throw OptionValues.invalid(v.isSet(ARGV) ? ARGV : null, v.isSet(COMMAND)
                    ? "give command or argv, not both" : "missing: give command (run by the shell) or argv (a program "
                    + "and its arguments)");
        }
        if (v.isSet(ARGV) && v.get(ARGV).isEmpty()) {
            throw OptionValues.invalid(ARGV, "must name a program");
        }
        String shell = v.get(SHELL);
        if (!shell.equals(LOGIN) && !Path.of(shell).isAbsolute()) {
            throw OptionValues.invalid(SHELL, "must be an absolute path or 'login', got '" + shell + "'");
        }
        if (v.isSet(DIRECTORY) && !Files.isDirectory(v.get(DIRECTORY))) {
            throw OptionValues.invalid(DIRECTORY, v.get(DIRECTORY) + " is not a directory");
        }
        if (v.isSet(ENV)) {
            for (String e : v.get(ENV)) {
                if (!VARIABLE.matcher(e).matches()) {
                    throw OptionValues.invalid(ENV, "expected NAME=VALUE, got '" + e + "'");
                }
            }
        }
        if (v.get(GRACE).isNegative()) {
            throw OptionValues.invalid(GRACE, "must not be negative");
        }
        if (v.get(LINGER).isNegative()) {
            throw OptionValues.invalid(LINGER, "must not be negative");
        }
    }

    /** The connector for the command or argv given: {@code shell.apply(command)} or {@code argv.apply(list)}. */
    static <T> T command(OptionValues v, Function<String, T> shell, Function<List<String>, T> argv) {
        return v.isSet(COMMAND) ? shell.apply(v.get(COMMAND)) : argv.apply(v.get(ARGV));
    }

    /** How the command runs, in this process's environment. */
    static CommandOptions options(OptionValues v) {
        return options(v, io.rdmaflux.pipeline.plugin.ProcessContext.inherited());
    }

    /** How the command runs: in {@code process}'s environment (its own {@code env} on top), stderr where it says. */
    static CommandOptions options(OptionValues v, io.rdmaflux.pipeline.plugin.ProcessContext process) {
        Map<String, String> env = new LinkedHashMap<>(process.environment());
        if (v.isSet(ENV)) {
            for (String e : v.get(ENV)) {
                int eq = e.indexOf('=');
                env.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        CommandOptions options = CommandOptions.defaults();
        if (process.stderr() != null) {
            options = options.withStderr(process.stderr());
        }
        options = process.whole() ? options.withWholeEnvironment(env) : options.withEnvironment(env);
        return options
                .withShell(shell(v.get(SHELL), process.variable("SHELL")))
                .withDirectory(v.get(DIRECTORY))
                .withGrace(v.get(GRACE))
                .withLinger(v.get(LINGER))
                .withName(v.get(NAME));
    }

    /** The shell a {@code shell} value names; 'login' is {@code $SHELL} when set to an absolute path. */
    static Path shell(String value, String userShell) {
        if (!value.equals(LOGIN)) {
            return Path.of(value);
        }
        return userShell != null && userShell.startsWith("/") ? Path.of(userShell) : Path.of("/bin/sh");
    }
}
