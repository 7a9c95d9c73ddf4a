package io.rdmaflux.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One of the real launchers ({@code bin/rdsend}, ...) running as a process, with its stderr
 * captured to a file and its peak resident memory sampled while it runs.
 */
final class Tool {

    static final Path HOME = Path.of(System.getProperty("rdflux.home", "..")).toAbsolutePath().normalize();

    final String name;
    final Process process;
    final Path stderr;
    private volatile long peakRssKb;
    private final Thread sampler;

    private Tool(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.sampler = new Thread(this::sample, "rss-" + name);
        this.sampler.setDaemon(true);
        this.sampler.start();
    }

    /**
     * Starts {@code bin/<name> args}, with stdin and stdout redirected as given. The tool sees
     * SIGINT, SIGTERM and SIGHUP as a shell's foreground job does, even where this JVM was
     * started ignoring them (as a background job without job control is): perl resets them and
     * execs the launcher, which execs the JVM, so the process keeps its pid.
     */
    static Tool start(Path workDir, String name, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out,
                      Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>(DEFAULT_SIGNALS);
        cmd.add(launcher(name));
        cmd.addAll(List.of(args));
        return run(workDir, name, cmd, in, out, env);
    }

    /**
     * Runs {@code script} with bash in a session and process group of its own (setsid), as a
     * shell runs a pipeline it was given: {@link #signalGroup} then reaches every process of it,
     * as Ctrl-C does. The process is bash, the group's leader.
     */
    static Tool group(Path workDir, String script, Map<String, String> env) {
        List<String> cmd = new ArrayList<>(DEFAULT_SIGNALS);
        cmd.addAll(List.of("setsid", "bash", "-c", script));
        return run(workDir, "bash", cmd, ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, env);
    }

    /** Runs {@code cmd} as it is, not a launcher (script(1), say), with stdin and stdout redirected as given. */
    static Tool exec(Path workDir, List<String> cmd, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out,
                     Map<String, String> env) {
        return run(workDir, Path.of(cmd.get(0)).getFileName().toString(), cmd, in, out, env);
    }

    private static final List<String> DEFAULT_SIGNALS =
            List.of("perl", "-e", "$SIG{INT} = $SIG{TERM} = $SIG{HUP} = 'DEFAULT'; exec @ARGV or die \"$!\\n\"", "--");

    /** The path of {@code bin/<name>}, for scripts. */
    static String launcher(String name) {
        return HOME.resolve("bin").resolve(name).toString();
    }

    private static Tool run(Path workDir, String name, List<String> cmd, ProcessBuilder.Redirect in,
                            ProcessBuilder.Redirect out, Map<String, String> env) {
        try {
            Path err = Files.createTempFile(workDir, name + "-", ".stderr");
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile())
                    .redirectInput(in).redirectOutput(out).redirectError(err.toFile());
            pb.environment().remove("RDFLUX_KEY");
            pb.environment().putAll(env);
            return new Tool(name, pb.start(), err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends the signal {@code name} ("INT", "TERM", "KILL") to the tool. */
    void signal(String name) {
        kill("-s", name, Long.toString(process.pid()));
    }

    /** Sends the signal {@code name} to every process of the group {@link #group} started. */
    void signalGroup(String name) {
        kill("-s", name, "--", "-" + process.pid());
    }

    private static void kill(String... args) {
        List<String> cmd = new ArrayList<>(List.of("kill"));
        cmd.addAll(List.of(args));
        try {
            Process k = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!k.waitFor(30, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new AssertionError("kill " + String.join(" ", args) + " failed: "
                        + new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static Tool start(Path workDir, String name, String... args) {
        return start(workDir, name, ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, Map.of(), args);
    }

    /** Waits for the exit code; fails the test if the process does not end in time. */
    int exitCode(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(name + " did not exit within " + timeout + "; stderr: " + err());
            }
            sampler.interrupt();
            return process.exitValue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** What the tool wrote to stderr. */
    String err() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<unreadable: " + e + ">";
        }
    }

    /** What the tool wrote to stderr, less the "listening on" line of a receiver on port 0. */
    String messages() {
        return LISTENING_LINE.matcher(err()).replaceFirst("");
    }

    /** Highest resident set size seen, in MiB. */
    long peakRssMiB() {
        return peakRssKb / 1024;
    }

    /** Sends SIGKILL: the process dies without any clean-up. */
    void kill() {
        process.destroyForcibly();
    }

    private void sample() {
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        while (process.isAlive() && !Thread.currentThread().isInterrupted()) {
            try {
                for (String line : Files.readAllLines(status)) {
                    if (line.startsWith("VmHWM:")) {
                        long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                        peakRssKb = Math.max(peakRssKb, kb);
                    }
                }
                Thread.sleep(100);
            } catch (IOException | RuntimeException e) {
                return;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The port of a receiver started on port 0, from the "listening on ADDRESS:PORT" line it
     * prints on stderr (waits at most 60 s for it).
     */
    int listeningPort() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            java.util.regex.Matcher m = LISTENING.matcher(err());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError(name + " printed no 'listening on' line: " + err());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static final java.util.regex.Pattern LISTENING = java.util.regex.Pattern.compile("listening on \\S+:(\\d+)");
    private static final java.util.regex.Pattern LISTENING_LINE =
            java.util.regex.Pattern.compile("^rdrecv: listening on \\S+:\\d+\n", java.util.regex.Pattern.MULTILINE);

    /** A port nobody listens on right now: for a sender that must find no receiver. */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
