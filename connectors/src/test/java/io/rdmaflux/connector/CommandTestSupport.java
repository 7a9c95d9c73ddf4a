package io.rdmaflux.connector;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.testing.MarkedProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the command tests share: a marker in the environment of every process a test starts
 * (other builds run the same commands on this machine at the same time), found again by
 * {@link MarkedProcesses}, and the command's stderr lines captured.
 */
final class CommandTestSupport {

    static final String MARK = "RDFLUX_TEST_MARK";

    final String mark = UUID.randomUUID().toString();
    final List<String> stderr = new CopyOnWriteArrayList<>();

    /** Options with this test's marker, stderr captured, running in {@code dir}. */
    CommandOptions options(Path dir) {
        return CommandOptions.defaults().withEnvironment(MARK, mark).withStderr(stderr::add).withDirectory(dir);
    }

    /** The failure of {@code command} whose process group outlived a linger of {@code linger} ("1 s"). */
    static String outlived(String command, String linger) {
        return "command '" + command + "' exited with status 0, but its process group was still running " + linger
                + " after it exited and was killed (to wait for a process substitution, end the command with "
                + "'; wait $!')";
    }

    /** The live processes that carry this test's marker (commands, their children, guards). */
    List<Long> processes() {
        return withMarker(mark);
    }

    /** Waits until no process carries the marker any more (and kills those that still do then). */
    void awaitNoneLeft() {
        assertThat(MarkedProcesses.awaitNone(MARK + "=" + mark, Duration.ofSeconds(20)))
                .as("processes with marker %s left", mark).isEmpty();
    }

    /**
     * A wait for the grace after SIGTERM that records the grace asked for, and whether the
     * command exited within it (false: it was then killed). It begins once {@code signals}, a
     * file the command's TERM trap appends to, shows that SIGTERM arrived, so that what the
     * command saw is certain without measuring time; then it waits as the real one does.
     */
    static final class GraceRecorder implements Termination.GraceWait {

        final List<Duration> graces = new CopyOnWriteArrayList<>();
        final List<Boolean> exitedWithin = new CopyOnWriteArrayList<>();
        private final Path signals;

        GraceRecorder(Path signals) {
            this.signals = signals;
        }

        @Override
        public boolean await(Process command, Duration grace) {
            graces.add(grace);
            // Bounded: if the trap never runs, the test's check of the signals file fails.
            for (int i = 0; i < 4000 && !termSeen(); i++) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            boolean exited = Termination.GraceWait.REAL.await(command, grace);
            exitedWithin.add(exited);
            return exited;
        }

        private boolean termSeen() {
            try {
                return Files.readString(signals).contains("TERM");
            } catch (IOException e) {
                return false;
            }
        }
    }

    static List<Long> withMarker(String mark) {
        return MarkedProcesses.find(MARK + "=" + mark);
    }
}
