package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.SshServer;
import io.rdmaflux.testing.MarkedProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each test, fails it if a process it started is still running 20 s later, found by the
 * test's temporary directory in its command line or environment ({@link MarkedProcesses}, which
 * also kills what it finds, so that the next test starts clean), and, when given an sshd, if
 * one of its sessions is still open. Register it on an instance field, so that it sees the
 * test's own {@code @TempDir}:
 *
 * <pre>{@code @RegisterExtension
 * final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);}</pre>
 */
public final class NothingLeftRunning implements AfterEachCallback {

    /** How long what a test started has to end after it: a JVM's exit, an ssh session's teardown. */
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final Supplier<Path> marker;
    private final SshServer sshd;
    private final Duration wait;

    private NothingLeftRunning(Supplier<Path> marker, SshServer sshd, Duration wait) {
        this.marker = marker;
        this.sshd = sshd;
        this.wait = wait;
    }

    /** Checks the processes that carry {@code dir} (the test's temporary directory, read after the test). */
    public static NothingLeftRunning markedBy(Supplier<Path> dir) {
        return new NothingLeftRunning(dir, null, WAIT);
    }

    /** Also checks that {@code sshd} has no session left. */
    public NothingLeftRunning andNoSessionsOf(SshServer sshd) {
        return new NothingLeftRunning(marker, sshd, wait);
    }

    /** Waits {@code wait} instead of 20 s for what the test started to end. */
    NothingLeftRunning within(Duration wait) {
        return new NothingLeftRunning(marker, sshd, wait);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        assertThat(MarkedProcesses.awaitNone(marker.get().toString(), wait)).as("processes of this test still running")
                .isEmpty();
        if (sshd != null) {
            assertThat(sshd.awaitNoSessions(wait)).as("ssh sessions still open").isEmpty();
        }
    }
}
