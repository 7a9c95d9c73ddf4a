package io.rdmaflux.cli;

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
 * bin/rdsend and bin/rdrecv over real RDMA verbs: runs {@code scripts/softroce/cli-check} in the
 * Soft-RoCE guest (files both ways, empty and 1-byte streams, AUTO choosing RDMA,
 * {@code --zstd --encrypt}, wrong key, either peer killed) and fails when any check fails.
 * It boots a QEMU guest (minutes, root, 4 GiB), so it runs only when asked, as the channel's
 * RDMA suite does: {@code RDMAFLUX_SOFTROCE_TESTS=1} or {@code -Drdmaflux.softroce=true}.
 */
class SoftRoceCliE2ETest {

    static boolean requested() {
        return Boolean.getBoolean("rdmaflux.softroce") || "1".equals(System.getenv("RDMAFLUX_SOFTROCE_TESTS"));
    }

    @Test
    @EnabledIf("requested")
    void theToolsWorkOverRealVerbs() throws Exception {
        Path repo = Tool.HOME;
        Path log = repo.resolve("cli/target/softroce-cli-check.log");
        Process p = new ProcessBuilder(repo.resolve("scripts/softroce/run").toString(), "--timeout", "1500",
                "scripts/softroce/cli-check")
                .directory(repo.toFile()).redirectErrorStream(true).start();
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
        assertThat(p.exitValue()).as("cli-check exit status; output in " + log).isZero();
        assertThat(out).contains("cli check: PASS");
    }
}
