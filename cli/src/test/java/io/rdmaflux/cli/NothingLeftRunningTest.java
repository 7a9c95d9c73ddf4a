package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NothingLeftRunning} with real processes: it fails a test that left one, and ends it. */
class NothingLeftRunningTest {

    @TempDir
    Path dir;

    @Test
    void aProcessLeftRunningFailsTheTestAndIsEnded() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("sleep", "600");
        pb.environment().put("RDFLUX_TEST_MARK", dir.toString());
        Process left = pb.start();
        try {
            NothingLeftRunning check = NothingLeftRunning.markedBy(() -> dir).within(Duration.ZERO);
            assertThatThrownBy(() -> check.afterEach(null)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("processes of this test still running").hasMessageContaining("sleep 600");
            assertThat(left.waitFor(20, TimeUnit.SECONDS)).as("ended by the check").isTrue();
            check.afterEach(null);
        } finally {
            left.destroyForcibly();
        }
    }

    @Test
    void aProcessThatEndedInTimePasses() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("true");
        pb.environment().put("RDFLUX_TEST_MARK", dir.toString());
        assertThat(pb.start().waitFor(20, TimeUnit.SECONDS)).isTrue();
        NothingLeftRunning.markedBy(() -> dir).within(Duration.ZERO).afterEach(null);
    }
}
