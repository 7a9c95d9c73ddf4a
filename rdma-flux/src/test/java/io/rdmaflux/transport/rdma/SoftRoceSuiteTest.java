package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Runs the module's RDMA suite ({@code src/test/softroce/run-all}: verbs smoke test, channel
 * streams both ways with SHA-256, empty/1-byte/odd sizes, slow consumer, wrong key, nothing left
 * registered, peers killed mid-stream, the transport contract) on real verbs inside the Soft-RoCE guest, through
 * {@code scripts/softroce/run}, and fails when the suite fails.
 *
 * <p>It boots a QEMU guest under software emulation (about 3 to 6 minutes in all, 4 GiB of RAM,
 * root needed), so it runs only when asked: {@code -Drdmaflux.softroce=true} or
 * {@code RDMAFLUX_SOFTROCE_TESTS=1}. CI sets one of them.
 */
class SoftRoceSuiteTest {

    static boolean requested() {
        return SoftRoceHarness.requested();
    }

    @Test
    @EnabledIf("requested")
    void rdmaSuitePassesOnSoftRoce() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        Path repo = module.getParent();
        assertThat(repo.resolve("scripts/softroce/run")).exists();
        // The guest reads the class files the build just wrote (the test class path file too).
        assertThat(module.resolve("target/test-classpath.txt")).exists();
        Path log = module.resolve("target/softroce-suite.log");
        SoftRoceHarness.Result r = SoftRoceHarness.run(repo, "rdma-flux/src/test/softroce/run-all", log);
        assertThat(r.ended()).as("harness ended").isTrue();
        assertThat(r.exitStatus()).as("RDMA suite exit status; output in %s, ending with:%n%s", log, r.tail(40)).isZero();
        assertThat(r.output()).contains("verbs smoke: PASS", "channel check: PASS", "contract check: PASS",
                "==== RDMA suite: PASS");
    }
}
