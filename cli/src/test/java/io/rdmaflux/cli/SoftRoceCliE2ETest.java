package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.transport.rdma.SoftRoceHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The tools over real RDMA verbs: runs {@code scripts/softroce/cli-check} in the Soft-RoCE guest
 * (rdsend/rdrecv: {@code --zstd --encrypt} with both ends AUTO choosing RDMA, a 1-byte file the
 * other way, junk connections, a wrong key and a second sender around a stream at an AUTO
 * receiver, either peer killed), then {@code rdcp-check} (rdcp -r over RDMA between two agents,
 * remote to remote with --zstd --encrypt, and a push), and fails when any check fails.
 * It boots a QEMU guest (minutes, root, 4 GiB), so it runs only when asked, as the channel's
 * RDMA suite does: {@code RDMAFLUX_SOFTROCE_TESTS=1} or {@code -Drdmaflux.softroce=true}.
 */
class SoftRoceCliE2ETest {

    /**
     * With the channel's RDMA suite. Its two past failures are dealt with: JVMs crashed under
     * multi-threaded TCG (the harness now runs single-threaded TCG, docs/rdma.md) and a receiver
     * whose sender had died waited forever (cli-check's receivers now have --timeout).
     */
    static boolean requested() {
        return SoftRoceHarness.requested();
    }

    @Test
    @EnabledIf("requested")
    void theToolsWorkOverRealVerbs() throws Exception {
        Path log = Tool.HOME.resolve("cli/target/softroce-cli-check.log");
        SoftRoceHarness.Result r = SoftRoceHarness.run(Tool.HOME, "scripts/softroce/cli-check", log);
        assertThat(r.ended()).as("harness ended").isTrue();
        assertThat(r.exitStatus()).as("cli-check exit status; output in %s, ending with:%n%s", log, r.tail(40)).isZero();
        assertThat(r.output()).contains("rdcp check: PASS", "cli check: PASS");
    }
}
