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

    /** Starts {@code bin/<name> args}, with stdin and stdout redirected as given. */
    static Tool start(Path workDir, String name, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out,
                      Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(HOME.resolve("bin").resolve(name).toString());
        cmd.addAll(List.of(args));
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

    /** A port nobody listens on right now. */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
