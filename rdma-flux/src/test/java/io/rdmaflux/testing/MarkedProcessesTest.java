package io.rdmaflux.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@link MarkedProcesses} with real processes, marked in their environment or their command line. */
class MarkedProcessesTest {

    @Test
    void findsProcessesByTheirEnvironmentOrCommandLineAndKillsThoseLeft() throws Exception {
        String mark = UUID.randomUUID().toString();
        ProcessBuilder byEnvironment = new ProcessBuilder("sleep", "600");
        byEnvironment.environment().put("RDFLUX_TEST_MARK", mark);
        Process first = byEnvironment.start();
        // The shell's own builtin waits (on its stdin, which stays open), so no child carries on without the mark.
        Process second = new ProcessBuilder("sh", "-c", "read line", mark).start();
        try {
            assertThat(MarkedProcesses.find(mark)).containsExactlyInAnyOrder(first.pid(), second.pid());
            assertThat(MarkedProcesses.find(UUID.randomUUID().toString())).isEmpty();

            assertThat(MarkedProcesses.awaitNone(mark, Duration.ZERO)).containsExactlyInAnyOrder(
                    first.pid() + " sleep 600", second.pid() + " sh -c read line " + mark);
            first.waitFor();
            second.waitFor();
            assertThat(MarkedProcesses.find(mark)).isEmpty();
            assertThat(MarkedProcesses.awaitNone(mark, Duration.ZERO)).isEmpty();
        } finally {
            first.destroyForcibly();
            second.destroyForcibly();
        }
    }
}
