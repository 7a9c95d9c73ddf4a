package io.rdmaflux.connector;

import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.process.ShellQuote;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.text.RemoteText;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A command to run: the argument vector and the text that shows it in messages.
 *
 * @param argv what is executed; for a shell command {@code /bin/sh -c TEXT sh} (see {@link #argv(Path)})
 * @param text the command as the user wrote it (argument vectors are shell-quoted)
 * @param shell whether {@code text} runs through {@code sh -c}
 */
record CommandLine(List<String> argv, String text, boolean shell) {

    private static final int MAX_SHOWN = 200;
    private static final Set<String> SKIPPED = Set.of("{", "(", "!", "exec", "command", "env", "sudo", "doas",
            "nice", "ionice", "nohup", "time", "stdbuf");

    CommandLine {
        argv = List.copyOf(argv);
        if (argv.isEmpty() || argv.get(0).isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
    }

    static CommandLine shell(String command) {
        Objects.requireNonNull(command, "command");
        if (command.isBlank()) {
            throw new IllegalArgumentException("empty command");
        }
        // "--": a command that begins with "-" is a command, not an option (-s would make the
        // shell read its script from the stream). "sh" becomes $0, so the shell's own errors
        // read "sh: 1: foo: not found".
        return new CommandLine(List.of("/bin/sh", "-c", "--", command, "sh"), command, true);
    }

    static CommandLine of(List<String> argv) {
        Objects.requireNonNull(argv, "argv");
        for (String a : argv) {
            Objects.requireNonNull(a, "argument");
        }
        return new CommandLine(argv, ShellQuote.join(argv), false);
    }

    /** What is executed: {@link #argv()}, with {@code shell} running a shell command instead of /bin/sh. */
    List<String> argv(Path shell) {
        if (!this.shell) {
            return argv;
        }
        Path name = shell.getFileName();
        // The shell's name becomes $0, so its own errors read "bash: line 1: foo: command not found".
        return List.of(shell.toString(), "-c", "--", text, name == null ? "sh" : name.toString());
    }

    /**
     * The base name of the program, for the stderr prefix: "zfs" for "zfs send pool@s", and for
     * "LC_ALL=C sudo -n zfs recv x" too (assignments, options and the usual wrappers skipped).
     */
    String defaultName() {
        List<String> words = shell ? List.of(text.trim().split("\\s+")) : argv;
        String name = words.get(0);
        for (String word : words) {
            if (!word.contains("=") && !word.startsWith("-") && !SKIPPED.contains(word)) {
                name = word;
                break;
            }
        }
        String clean = RemoteText.sanitize(name.substring(name.lastIndexOf('/') + 1), 40);
        return clean.isEmpty() ? "command" : clean;
    }

    /** The command for a one-line message: {@code command 'tar c .'}, sanitized and bounded. */
    String quoted() {
        return "command '" + RemoteText.sanitize(text, MAX_SHOWN) + "'";
    }

    /**
     * Fails now, with a clear message, if an argument vector's program cannot be found or run;
     * a shell command's words are the shell's business (it reports them, with status 127).
     *
     * @param path      the PATH the command will see
     * @param directory the working directory it will have, or null for this process's
     * @param code      SOURCE_FAILED or SINK_FAILED, for the exception
     */
    void checkRunnable(String path, Path directory, ErrorCode code) {
        if (shell) {
            return;
        }
        String program = argv.get(0);
        if (program.contains("/")) {
            Path p = Path.of(program);
            if (!p.isAbsolute() && directory != null) {
                p = directory.resolve(p);
            }
            if (!Files.exists(p)) {
                throw failure(code, Reason.NOT_FOUND, program + ": no such file");
            }
            if (Files.isDirectory(p) || !Files.isExecutable(p)) {
                throw failure(code, Reason.PERMISSION_DENIED, program + ": not an executable file");
            }
            return;
        }
        for (String dir : (path == null ? "" : path).split(File.pathSeparator, -1)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return;
            }
        }
        throw failure(code, Reason.NOT_FOUND, program + ": command not found");
    }

    private ConnectorException failure(ErrorCode code, Reason reason, String what) {
        return new ConnectorException(code, reason, "cannot run " + quoted() + ": " + RemoteText.sanitize(what, MAX_SHOWN), null);
    }
}
