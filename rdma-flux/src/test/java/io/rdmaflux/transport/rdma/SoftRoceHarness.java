package io.rdmaflux.transport.rdma;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script inside the Soft-RoCE guest through {@code scripts/softroce/run}, for the host
 * tests of the RDMA suites (this module's and the command-line tools'). The guest needs root,
 * 4 GiB and minutes, so these tests run only when asked.
 */
public final class SoftRoceHarness {

    private SoftRoceHarness() {
    }

    /** Whether the real-RDMA tests were asked for: {@code -Drdmaflux.softroce=true} or {@code RDMAFLUX_SOFTROCE_TESTS=1}. */
    public static boolean requested() {
        return Boolean.getBoolean("rdmaflux.softroce") || "1".equals(System.getenv("RDMAFLUX_SOFTROCE_TESTS"));
    }

    /** What a guest run printed and how it ended. */
    public record Result(boolean ended, int exitStatus, String output) {

        /**
         * The last {@code lines} lines of the output, for assertion messages: CI shows only the
         * tail of the build log, and the saved log file does not outlive the CI machine.
         */
        public String tail(int lines) {
            String[] all = output.split("\n", -1);
            int from = Math.max(0, all.length - lines);
            return String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
        }
    }

    /**
     * Runs {@code script} (a path relative to {@code repo}) in the guest, echoing its output
     * and saving it to {@code log}; waits at most 30 minutes. A run in which a JVM died of a
     * fatal error inside the emulator is run once more (see scripts/softroce/run).
     */
    public static Result run(Path repo, String script, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(repo.resolve("scripts/softroce/run").toString(), "--timeout", "1500",
                "--retry-jvm-crash", script)
                .directory(repo.toFile())
                .redirectErrorStream(true)
                .start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println(line);
                out.append(line).append('\n');
            }
        }
        boolean ended = p.waitFor(30, TimeUnit.MINUTES);
        if (!ended) {
            p.destroy();
        }
        Files.writeString(log, out);
        return new Result(ended, ended ? p.exitValue() : -1, out.toString());
    }
}
