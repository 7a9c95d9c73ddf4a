package io.rdmaflux.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A command run as a real process in a controlled environment: only the PATH given (no java on
 * it), no JAVA_HOME or RDFLUX_* variables, a home of its own; stdout and stderr to files, so a
 * chatty process never blocks on a full pipe.
 */
final class Installed {

    private final Process process;
    private final Path out;
    private final Path err;

    private Installed(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** Starts the command in {@code dir} with {@code PATH=path} and nothing else from this JVM's environment. */
    static Installed start(Path dir, String path, Map<String, String> env, String... command) {
        try {
            Path logs = Files.createTempDirectory(dir, "proc");
            ProcessBuilder pb = new ProcessBuilder(List.of(command)).directory(dir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(logs.resolve("out").toFile()).redirectError(logs.resolve("err").toFile());
            Map<String, String> e = pb.environment();
            e.clear();
            e.put("PATH", path);
            e.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
            // No ssh master left behind (it outlives the call by design), as in every test JVM
            // (the parent pom); a test that wants sharing says so in env.
            e.put("RDFLUX_SSH_SHARE", "no");
            e.put("RDFLUX_WARM_AGENT", "no");   // the same for the warm agent's daemon
            e.put("RDFLUX_STANDBY", "no");      // and for the standby JVM a call leaves
            e.putAll(env);
            return new Installed(pb.start(), logs.resolve("out"), logs.resolve("err"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the command to its end (killed after 120 s) and returns it. */
    static Installed run(Path dir, String path, String... command) {
        Installed p = start(dir, path, Map.of(), command);
        p.exitCode();
        return p;
    }

    /** The exit code, waiting at most 120 s; a process still running then is killed and the test fails. */
    int exitCode() {
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("still running after 120 s, killed: stderr: " + err());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError(e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void kill() {
        process.destroyForcibly();
    }

    String out() {
        return read(out);
    }

    String err() {
        return read(err);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code rdflux --version} with the launcher {@code rdflux}, logging the classes its
     * JVM loads, and gives the log's line for the tools' main class: "... source: shared objects
     * file" when it came from a start-up archive, "... source: jar:..." or "file:..." when not.
     */
    static String mainClassSource(Path dir, Path rdflux) {
        Path log = dir.resolve("class-load-" + System.nanoTime() + ".log");
        Installed v = start(dir, "/usr/bin:/bin", Map.of("RDFLUX_JAVA_OPTS", "-Xlog:class+load=info:file=" + log),
                rdflux.toString(), "--version");
        if (v.exitCode() != 0) {
            throw new AssertionError("rdflux --version failed: " + v.describe());
        }
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.contains(" io.rdmaflux.cli.Main source: ")).findFirst()
                    .orElseThrow(() -> new AssertionError("io.rdmaflux.cli.Main not in " + log));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** "exit N, stdout: ..., stderr: ..." for assertion messages. */
    String describe() {
        List<String> parts = new ArrayList<>();
        parts.add("exit " + (process.isAlive() ? "(running)" : process.exitValue()));
        parts.add("stdout: " + out());
        parts.add("stderr: " + err());
        return String.join(", ", parts);
    }
}
