package io.rdmaflux.transport.rdma;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script inside the Soft-RoCE guest through {@code scripts/softroce/run}, for the host
 * tests of the RDMA suites (this module's and the command-line tools'). The guest needs root,
 * 4 GiB and minutes, so these tests run only when asked.
 */
public final class SoftRoceHarness {

    /** Longest a guest run may take before it is killed: the harness's own limit plus margin. */
    static final Duration LIMIT = Duration.ofMinutes(30);

    private SoftRoceHarness() {
    }

    /** Whether the real-RDMA tests were asked for: {@code -Drdmaflux.softroce=true} or {@code RDMAFLUX_SOFTROCE_TESTS=1}. */
    public static boolean requested() {
        return Boolean.getBoolean("rdmaflux.softroce") || "1".equals(System.getenv("RDMAFLUX_SOFTROCE_TESTS"));
    }

    /** What a guest run printed and how it ended; {@code ended} is false when it was killed at its limit. */
    public record Result(boolean ended, int exitStatus, String output) {

        /**
         * The last {@code lines} lines of the output, for assertion messages: CI shows only the
         * tail of the build log, and the saved log file does not outlive the CI machine.
         */
        public String tail(int lines) {
            String[] all = output.split("\n", -1);
            int from = Math.max(0, all.length - lines);
            return String.join("\n", Arrays.copyOfRange(all, from, all.length));
        }
    }

    /**
     * Runs {@code script} (a path relative to {@code repo}) in the guest, echoing its output
     * and saving it to {@code log}; waits at most {@link #LIMIT}. A run in which a JVM died of
     * a fatal error inside the emulator is run once more (see scripts/softroce/run).
     */
    public static Result run(Path repo, String script, Path log) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(repo.resolve("scripts/softroce/run").toString(), "--timeout", "1500",
                "--retry-jvm-crash", script)
                .directory(repo.toFile());
        return run(pb, LIMIT, log);
    }

    /**
     * Runs {@code command} with stderr merged into stdout, echoing and collecting its output on
     * a thread of its own, so that the limit holds even while the command prints nothing. At
     * the limit the command and every process it started are killed.
     */
    static Result run(ProcessBuilder command, Duration limit, Path log) throws IOException, InterruptedException {
        Process p = command.redirectErrorStream(true).start();
        StringBuffer out = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    System.out.println(line);
                    out.append(line).append('\n');
                }
            } catch (IOException e) {
                out.append("(output lost: ").append(e.getMessage()).append(")\n");
            }
        }, "softroce-output");
        reader.setDaemon(true);
        reader.start();
        boolean ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            out.append("softroce harness: no result within ").append(limit.toMinutes()).append(" min; killed\n");
            destroyTree(p);
        }
        // Output still buffered in the pipe; a killed tree's pipe closes once all are gone.
        reader.join(TimeUnit.SECONDS.toMillis(30));
        try {
            Files.writeString(log, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save the guest's output to " + log, e);
        }
        return new Result(ended, ended ? p.exitValue() : -1, out.toString());
    }

    /**
     * Kills a process and all its descendants: the process first, so that the harness script
     * can stop its guest in order, then everything below it, forcibly where needed.
     */
    private static void destroyTree(Process p) throws InterruptedException {
        List<ProcessHandle> descendants = p.descendants().toList();
        p.destroy();
        descendants.forEach(ProcessHandle::destroy);
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
        p.waitFor(15, TimeUnit.SECONDS);
    }
}
