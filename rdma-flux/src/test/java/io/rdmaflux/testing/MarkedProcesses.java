package io.rdmaflux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The processes a test started, found again through {@code /proc} by a marker the test put in
 * their command line or environment (its temporary directory, a random token): other builds
 * run the same commands on this machine at the same time, so a name alone cannot tell them
 * apart. For the tests of every module that checks that nothing is left running (rdma-flux's
 * test-jar). Linux only.
 */
public final class MarkedProcesses {

    private static final Path PROC = Path.of("/proc");

    private MarkedProcesses() {
    }

    /**
     * The live processes, other than this JVM, whose command line or environment contains
     * {@code marker}. A zombie has neither any more, so it is not counted: it runs nothing.
     */
    public static List<Long> find(String marker) {
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC,
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : procs) {
                long pid = Long.parseLong(p.getFileName().toString());
                if (pid != self && (contains(read(p.resolve("cmdline")), needle)
                        || contains(read(p.resolve("environ")), needle))) {
                    found.add(pid);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    /**
     * Waits up to {@code timeout} until no process carries {@code marker}; kills those still
     * there with SIGKILL, so that they cannot disturb the tests that follow, and returns them,
     * each as "PID command line" (empty when none was left).
     */
    public static List<String> awaitNone(String marker, Duration timeout) {
        // More than a wait: what is left after it is killed and described, so the timeout is not a failure here.
        if (!timeout.isZero() && !timeout.isNegative()) {
            try {
                Awaitility.await("no process marked " + marker).atMost(timeout)
                        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                        .until(() -> find(marker).isEmpty());
            } catch (ConditionTimeoutException stillThere) {
                // Killed and reported below.
            }
        }
        List<Long> left = find(marker);
        List<String> described = new ArrayList<>();
        for (long pid : left) {
            String command = new String(read(PROC.resolve(Long.toString(pid)).resolve("cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ').strip();
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            described.add(pid + " " + command);
        }
        return described;
    }

    /** The file's bytes, or none when the process is gone or not ours to read. */
    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return new byte[0];
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
