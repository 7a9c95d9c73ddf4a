package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Runs the module's RDMA suite ({@code src/test/softroce/run-all}: verbs smoke test, channel
 * streams both ways with SHA-256, empty/1-byte/odd sizes, slow consumer, wrong key, nothing left
 * registered, peers killed mid-stream) on real verbs inside the Soft-RoCE guest, through
 * {@code scripts/softroce/run}, and fails when the suite fails.
 *
 * <p>It boots a QEMU guest under software emulation (about 3 to 6 minutes in all, 4 GiB of RAM,
 * root needed), so it runs only when asked: {@code -Drdmaflux.softroce=true} or
 * {@code RDMAFLUX_SOFTROCE_TESTS=1}. CI sets one of them.
 */
class SoftRoceSuiteTest {

    static boolean requested() {
        return Boolean.getBoolean("rdmaflux.softroce") || "1".equals(System.getenv("RDMAFLUX_SOFTROCE_TESTS"));
    }

    @Test
    @EnabledIf("requested")
    void rdmaSuitePassesOnSoftRoce() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        Path repo = module.getParent();
        Path harness = repo.resolve("scripts/softroce/run");
        assertThat(harness).exists();
        // The guest reads the class files the build just wrote (the test class path file too).
        assertThat(module.resolve("target/test-classpath.txt")).exists();
        Path log = module.resolve("target/softroce-suite.log");
        ProcessBuilder pb = new ProcessBuilder(harness.toString(), "--timeout", "1500",
                "rdma-flux/src/test/softroce/run-all")
                .directory(repo.toFile())
                .redirectErrorStream(true);
        Process p = pb.start();
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
        assertThat(ended).as("harness ended").isTrue();
        assertThat(p.exitValue()).as("RDMA suite exit status; output in " + log).isZero();
        assertThat(out).contains("verbs smoke: PASS", "channel check: PASS", "==== RDMA suite: PASS");
    }
}
