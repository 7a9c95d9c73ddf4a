package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The guest runner's own limit, on the host with ordinary commands (no guest, no root). */
class SoftRoceHarnessTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aSilentCommandPastItsLimitIsKilledWithItsChildren(@TempDir Path dir) throws Exception {
        // Prints one line, then waits silently on a child that would sleep for ten minutes and
        // keeps the output pipe open all that time.
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "sleep 600 & echo child $!; wait");
        Path log = dir.resolve("guest.log");

        SoftRoceHarness.Result r = SoftRoceHarness.run(pb, Duration.ofSeconds(2), log);

        assertThat(r.ended()).isFalse();
        assertThat(r.exitStatus()).isEqualTo(-1);
        assertThat(r.output()).contains("child ").contains("killed");
        assertThat(Files.readString(log)).isEqualTo(r.output());
        Matcher m = Pattern.compile("child (\\d+)").matcher(r.output());
        assertThat(m.find()).isTrue();
        Optional<ProcessHandle> child = ProcessHandle.of(Long.parseLong(m.group(1)));
        child.ifPresent(h -> h.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        assertThat(child.map(ProcessHandle::isAlive).orElse(false)).as("the sleeping child was killed").isFalse();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCommandThatEndsInTimeGivesItsStatusAndWholeOutput(@TempDir Path dir) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "echo one; echo two >&2; exit 3");

        SoftRoceHarness.Result r = SoftRoceHarness.run(pb, Duration.ofMinutes(1), dir.resolve("guest.log"));

        assertThat(r.ended()).isTrue();
        assertThat(r.exitStatus()).isEqualTo(3);
        assertThat(r.output()).isEqualTo("one\ntwo\n");
        assertThat(r.tail(1)).isEmpty();
        assertThat(r.tail(2)).isEqualTo("two\n");
    }
}
