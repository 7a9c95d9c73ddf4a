package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the command tests share: a marker in the environment of every process a test starts
 * (other builds run the same commands on this machine at the same time), found again through
 * {@code /proc/PID/environ}, and the command's stderr lines captured.
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

    /** Waits until no process carries the marker any more. */
    void awaitNoneLeft() {
        TestSupport.await("no process with marker " + mark + " left (still: " + processes() + ")",
                () -> processes().isEmpty());
    }

    static List<Long> withMarker(String mark) {
        byte[] needle = (MARK + "=" + mark).getBytes(StandardCharsets.US_ASCII);
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path p : procs) {
                byte[] env;
                try {
                    env = Files.readAllBytes(p.resolve("environ"));
                } catch (IOException | SecurityException e) {
                    continue;   // gone, or not ours
                }
                if (contains(env, needle)) {
                    found.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return found;
    }

    /** Whether one of the NUL-separated entries of {@code env} is {@code entry}. */
    private static boolean contains(byte[] env, byte[] entry) {
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start == entry.length && Arrays.equals(env, start, i, entry, 0, entry.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }
}
