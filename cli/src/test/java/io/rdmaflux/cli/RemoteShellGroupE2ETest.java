package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.ShellWords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A remote shell that hangs (a ProxyCommand that never connects, an {@code -e} wrapper that
 * ignores SIGTERM) ends with the tool, all of it: rdcp and rdpipe end its whole process group,
 * not only the PID they started. No sshd is needed: the hung remote shell never reaches one.
 * What it started is found by a sentinel number in its command line.
 */
class RemoteShellGroupE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    /** How long the processes the tool killed may take to be gone (a bounded wait, not a measurement). */
    private static final Duration GONE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /** A number no other process has in its command line: "sleep SENTINEL". */
    private String sentinel;

    @BeforeEach
    void pickSentinel() {
        sentinel = Long.toString(9_000_000 + ThreadLocalRandom.current().nextLong(1_000_000));
    }

    @AfterEach
    void killSurvivors() {
        // Whatever the outcome, leave nothing running.
        for (long pid : sentinelProcesses()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void rdcpEndsAHungProxyCommand() throws Exception {
        Path in = Files.writeString(dir.resolve("in.txt"), "x");
        Tool t = Tool.start(dir, "rdcp", "-e", hungSsh(), "--start-timeout", "3", in.toString(), "h:" + dir.resolve("x"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertNothingLeft();
    }

    @Test
    void rdcpEndsAWrapperThatIgnoresSigterm() throws Exception {
        Path in = Files.writeString(dir.resolve("in.txt"), "x");
        Tool t = Tool.start(dir, "rdcp", "-e", stubbornWrapper().toString(), "--start-timeout", "3", in.toString(),
                "h:" + dir.resolve("x"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertNothingLeft();
    }

    @Test
    void rdpipeEndsAWrapperThatIgnoresSigterm() throws Exception {
        Tool t = Tool.start(dir, "rdpipe", "-e", stubbornWrapper().toString(), "--start-timeout", "3", "h:cat");
        t.process.getOutputStream().close();
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertNothingLeft();
    }

    /** A remote shell that cannot be run is named as such, started through setsid or not. */
    @Test
    void aRemoteShellThatCannotBeRunIsNamed() throws Exception {
        Path in = Files.writeString(dir.resolve("in.txt"), "x");
        Tool t = Tool.start(dir, "rdcp", "-e", "no-such-rsh-" + sentinel, in.toString(), "h:" + dir.resolve("x"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(t.err()).contains("cannot run 'no-such-rsh-" + sentinel + "'").contains("(check -e or RDFLUX_RSH)");
    }

    /** ssh whose ProxyCommand never connects: it waits forever, with no sshd involved. */
    private String hungSsh() {
        return "ssh -F /dev/null -o ProxyCommand=" + ShellWords.quote("sleep " + sentinel);
    }

    /** An -e "remote shell" that ignores SIGTERM, as does the child it waits for. */
    private Path stubbornWrapper() throws IOException {
        Path script = dir.resolve("stubborn-rsh");
        Files.writeString(script, "#!/bin/sh\ntrap '' TERM\nsleep " + sentinel + "\necho done\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private void assertNothingLeft() {
        await("no 'sleep " + sentinel + "' left").atMost(GONE).untilAsserted(() -> assertThat(sentinelProcesses())
                .as("processes with 'sleep %s' left running after the tool ended", sentinel).isEmpty());
    }

    /** The live (not zombie) processes whose command line holds "sleep SENTINEL". */
    private List<Long> sentinelProcesses() {
        byte[] needle = ("sleep\0" + sentinel).getBytes(StandardCharsets.US_ASCII);
        byte[] alone = sentinel.getBytes(StandardCharsets.US_ASCII);
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : procs) {
                try {
                    byte[] cmd = Files.readAllBytes(p.resolve("cmdline"));
                    String stat = Files.readString(p.resolve("stat"));
                    String state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
                    if (!state.equals("Z") && (contains(cmd, needle) || endsWithWord(cmd, alone))) {
                        found.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException gone) {
                    // Exited while looked at.
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc", e);
        }
        return found;
    }

    /** ssh runs its ProxyCommand through "sh -c 'exec sleep N'": the sentinel ends that word. */
    private static boolean endsWithWord(byte[] cmd, byte[] word) {
        String s = new String(cmd, StandardCharsets.US_ASCII);
        for (String arg : s.split("\0")) {
            if (arg.equals("exec sleep " + new String(word, StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
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
