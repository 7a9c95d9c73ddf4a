package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.testing.MarkedProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdsend --command} and {@code rdrecv --command} as real processes over loopback TCP,
 * with real commands on both ends: what ZFS users do with {@code zfs send} and {@code zfs recv},
 * shaped with tar. The receiving command must see the end of its input only after a verified
 * stream; each side's command failure decides that side's exit status. Processes are told apart
 * by this test's temporary directory in their command lines.
 */
class CommandE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void aTreeTravelsFromTarCToTarXIntact() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/nested/deeper"));
        Files2.random(dir.resolve("src/big.bin"), 5L << 20, 1);
        Files2.random(dir.resolve("src/nested/small.bin"), 1000, 2);
        Files2.random(dir.resolve("src/nested/deeper/empty"), 0, 3);
        Files.writeString(dir.resolve("src/nested/deeper/text"), "hello\n");
        Path dst = Files.createDirectories(dir.resolve("dst"));
        Tool r = Tool.start(dir, "rdrecv", "-v", "--transport", "tcp", "--command", "tar x -C " + dst, "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "-v", "--zstd=3", "--encrypt", "--transport", "tcp",
                "--command", "tar c -C " + dir.resolve("src") + " .", "127.0.0.1", Integer.toString(port), "k");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(tree(dst)).isEqualTo(tree(dir.resolve("src"))).hasSize(6);
        assertThat(r.err()).contains("into tar x -C " + dst, "receiving through codecs: zstd");
        assertThat(s.err()).contains("sent ");
        assertThat(src).isDirectory();
    }

    @Test
    void aFailedSendingCommandFailsTheTransferAndTheReceivingCommandNeverSeesTheEnd() throws Exception {
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp",
                "--command", "cat > " + dir.resolve("part") + "; touch " + dir.resolve("done"), "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--command",
                "head -c 300000 /dev/urandom; echo no such snapshot >&2; exit 3", "127.0.0.1", Integer.toString(port), "k");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(3);
        assertThat(s.err()).contains("[head] no such snapshot",
                "rdsend: command 'head -c 300000 /dev/urandom; echo no such snapshot >&2; exit 3' exited with status 3:"
                        + " no such snapshot");
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.NO_INPUT);
        assertThat(r.err()).contains("sender reported: command 'head -c 300000").contains("exited with status 3");
        assertThat(dir.resolve("done")).as("the receiving command must never see the end of its input")
                .doesNotExist();
        assertNoProcessLeft();
    }

    @Test
    void aFailedReceivingCommandDecidesTheReceiversStatus() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 200_000, 4);
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp",
                "--command", "cat > /dev/null; echo cannot receive >&2; exit 3", "0", "k");
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(3);
        assertThat(r.err()).contains("[cat] cannot receive", "rdrecv: command 'cat > /dev/null; echo cannot receive >&2;"
                + " exit 3' exited with status 3 after the end of its input: cannot receive");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.IO);
        assertThat(s.err()).contains("receiver reported: command").hasLineCount(1);
    }

    @Test
    void aCutStreamStopsTheReceivingCommandWithoutEndOfInput() throws Exception {
        Path sleeper = Files.createSymbolicLink(dir.resolve("sleeper"), Path.of("/bin/sleep"));
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp",
                "--command", "cat > " + dir.resolve("part") + "; touch " + dir.resolve("done"), "0", "k");
        int port = r.listeningPort();
        // The sending command writes, then never ends: the stream is under way when rdsend dies.
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--command",
                "head -c 2000000 /dev/urandom; exec " + sleeper + " 600", "127.0.0.1", Integer.toString(port), "k");
        await("bytes in " + dir.resolve("part")).atMost(LIMIT).until(() -> holdsBytes(dir.resolve("part")));
        s.kill();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.TEMP_FAIL);
        // A FIN ("closed the connection") or a reset, as the kernel ends a killed process's socket.
        assertThat(r.err()).contains("sender").containsIgnoringCase("connection");
        s.exitCode(LIMIT);
        assertThat(dir.resolve("done")).as("the receiving command must never see the end of its input")
                .doesNotExist();
        assertNoProcessLeft();
    }

    @Test
    void ctrlCStopsTheSendingCommand() throws Exception {
        Path sleeper = Files.createSymbolicLink(dir.resolve("sleeper"), Path.of("/bin/sleep"));
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--command",
                "head -c 2000000 /dev/urandom; exec " + sleeper + " 600", "127.0.0.1", Integer.toString(port), "k");
        await("bytes in " + dir).atMost(LIMIT).until(() -> holdsBytes(dir));
        s.signal("INT");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(s.err()).contains("sender interrupted by SIGINT");
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(r.err()).contains("sender reported: sender interrupted by SIGINT");
        assertThat(out).doesNotExist();
        assertNoProcessLeft();
    }

    /** The port a receiver started on port 0 says it listens on. */
    /** Whether {@code path}, a file or (a partial out.bin directly in) a directory, holds some bytes. */
    private static boolean holdsBytes(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            try (Stream<Path> files = Files.list(path)) {
                return files.anyMatch(p -> p.getFileName().toString().startsWith(".out.bin") && p.toFile().length() > 0);
            }
        }
        return Files.exists(path) && Files.size(path) > 0;
    }

    /** Relative path to SHA-256 (directories: "dir"), for every entry under {@code root}. */
    private static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(p -> !p.equals(root)).toList()) {
                entries.put(root.relativize(p).toString(), Files.isDirectory(p) ? "dir" : Files2.sha256(p));
            }
        }
        return entries;
    }

    /** No process whose command line names this test's directory is left, within a few seconds. */
    private void assertNoProcessLeft() {
        assertThat(MarkedProcesses.awaitNone(dir.toString(), Duration.ofSeconds(20))).as("processes left behind").isEmpty();
    }
}
