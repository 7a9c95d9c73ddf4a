package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress line and the numbers the tools print, with the real launchers (and, for rdpipe,
 * the real agent behind the loopback sshd): a message never shares a line with a progress
 * fragment, nothing follows the final line, and the counts are what the user would count. The
 * progress line is forced with --progress (stderr is a file here); every wait is bounded.
 */
class ProgressE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(90);
    /** Every progress line has a rate; no message has. */
    private static final String PROGRESS_FRAGMENT = "B/s";

    @TempDir
    Path dir;

    private Path remoteTool;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void wrapper() throws IOException {
        // The tool as the remote hosts run it: this JDK, and the test's marker in its environment.
        remoteTool = RemoteRdflux.in(dir);
    }

    @Test
    void aRemoteLineClearsTheProgressLineAndNoProgressFollowsTheError() throws Exception {
        // The remote command says something on stderr once it has read a line, while the
        // progress line is on screen; then Ctrl-C (SIGINT) ends rdpipe with an error.
        Tool t = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.to(dir.resolve("out").toFile()),
                Map.of("RDFLUX_JAVA_OPTS", marker()), "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(remoteTool.toString()),
                "--progress", "h1:read x; echo remote-note >&2; wc -c");
        await("a progress line").atMost(LIMIT).until(() -> t.err().contains(PROGRESS_FRAGMENT));
        OutputStream in = t.process.getOutputStream();
        in.write("go\n".getBytes(StandardCharsets.US_ASCII));
        in.flush();
        await("the remote line").atMost(LIMIT).until(() -> t.err().contains("remote-note"));
        // Progress goes on being drawn after the remote line: wait for a fragment after it.
        await("progress after the remote line").atMost(LIMIT)
                .until(() -> t.err().substring(t.err().indexOf("remote-note")).contains(PROGRESS_FRAGMENT));
        t.signal("INT");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.ofSignal(2));

        String err = t.err();
        String note = shown(err).stream().filter(l -> l.contains("remote-note")).findFirst().orElseThrow();
        assertThat(note).as("the remote line as the terminal shows it; stderr: %s", err)
                .startsWith("rdpipe: ").doesNotContain(PROGRESS_FRAGMENT);
        assertFinalLineLast(err, "rdpipe: ");
    }

    @Test
    void rdsendInterruptedEndsWithItsErrorNotWithProgress() throws Exception {
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, Map.of(),
                "--progress", "127.0.0.1", Integer.toString(port), "k");
        OutputStream in = s.process.getOutputStream();
        in.write(new byte[1 << 20]);
        in.flush();
        await("a progress line").atMost(LIMIT).until(() -> s.err().contains(PROGRESS_FRAGMENT));
        s.signal("INT");
        assertThat(s.exitCode(LIMIT)).as(s.err()).isEqualTo(ExitCode.ofSignal(2));
        r.exitCode(LIMIT);
        String err = s.err();
        assertThat(err).contains("interrupted by SIGINT");
        assertFinalLineLast(err, "rdsend: ");
    }

    @Test
    void rdpipeCountsTheBusiestHopNotTheLastCommandsOutput() throws Exception {
        Path input = Files2.random(dir.resolve("input"), 3 * 1048576 + 7, 5);
        Path out = dir.resolve("out");
        Tool t = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.from(input.toFile()), ProcessBuilder.Redirect.to(out.toFile()),
                Map.of("RDFLUX_JAVA_OPTS", marker()), "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(remoteTool.toString()),
                "-v", "h1:wc -c");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(Files.readString(out).strip()).isEqualTo(Long.toString(Files.size(input)));
        // 3 MiB went to h1, 8 bytes came back: the summary is about the 3 MiB.
        assertThat(t.err()).as("rdpipe -v").contains("rdpipe: " + Files.size(input) + " bytes (3.00 MiB) in ");
    }

    @Test
    void rdcpCountsASparseFilesLengthAndLinksAsLinks() throws Exception {
        // A 256 MiB file of which 1 MiB is data, the rest a hole; a small file with two more names.
        Path src = Files.createDirectories(dir.resolve("remote").resolve("src"));
        Path sparse = src.resolve("sparse.img");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(sparse.toFile(), "rw")) {
            f.write(Files.readAllBytes(Files2.random(dir.resolve("head"), 1 << 20, 3)));
            f.setLength(256L << 20);
        }
        Path small = Files2.random(src.resolve("small"), 4096, 4);
        Files.createLink(src.resolve("small-2"), small);
        Files.createLink(src.resolve("small-3"), small);
        long logical = (256L << 20) + 4096;
        Path dst = dir.resolve("dst");

        // Pulled: the holes are counted on h2, and reach the progress line through the agent's reports.
        Tool t = Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", marker()), "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(remoteTool.toString()),
                "-r", "-v", "--progress", "h2:" + src, dst.toString());
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(Files.mismatch(sparse, dst.resolve("sparse.img"))).isEqualTo(-1);
        String err = t.err();
        List<String> lines = shown(err);
        int copied = lines.indexOf(lines.stream().filter(l -> l.startsWith("rdcp: copied ")).findFirst()
                .orElseThrow(() -> new AssertionError("no summary: " + err)));
        String last = lines.get(copied - 1);
        assertThat(last).as("the last progress line; stderr: %s", err)
                .startsWith(Meter.human(logical) + " / " + Meter.human(logical) + " 100%")
                .contains("  2/2 files, 2 links  ").doesNotContain("ETA");
        assertThat(lines.get(copied)).as("the summary")
                .startsWith("rdcp: copied 2 files, 2 links, " + logical + " bytes (" + Meter.human(logical) + ") in ");
        // The bandwidth is that of the bytes the summary counts, in the time it says.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" in ([0-9.]+) s").matcher(lines.get(copied));
        assertThat(m.find()).isTrue();
        double seconds = Double.parseDouble(m.group(1)) + 0.01;
        // The next line says what crossed the wire: the data, not the holes (1 MiB and the small file).
        assertThat(lines.get(copied + 1)).as("the sent line").startsWith("rdcp: sent ");
        long sent = Long.parseLong(lines.get(copied + 1).replaceAll("^rdcp: sent ([0-9]+) bytes.*", "$1"));
        assertThat(sent).as(lines.get(copied + 1)).isLessThan(4L << 20);
        String bandwidth = lines.get(copied + 2);
        assertThat(bandwidth).startsWith("Bandwidth ");
        double gbs = Double.parseDouble(bandwidth.replaceAll("[^0-9.]", ""));
        assertThat(gbs).as("%s against %d bytes in %s", bandwidth, logical, m.group(1))
                .isGreaterThanOrEqualTo(logical / seconds / 1e9 - 0.001);
    }

    // ---- helpers

    /** Each line of stderr as a terminal shows it: what follows the last carriage return. */
    private static List<String> shown(String err) {
        List<String> lines = new ArrayList<>();
        for (String raw : err.split("\n", -1)) {
            lines.add(raw.substring(raw.lastIndexOf('\r') + 1));
        }
        return lines;
    }

    /**
     * The tool's final message is the last line, alone, and whole: no progress fragment before
     * it on its line, and none after it.
     */
    private static void assertFinalLineLast(String err, String prefix) {
        assertThat(err).as("stderr ends with a newline").endsWith("\n");
        List<String> lines = shown(err.substring(0, err.length() - 1));
        String last = lines.get(lines.size() - 1);
        assertThat(last).as("the last line of stderr: %s", err).startsWith(prefix)
                .doesNotContain(PROGRESS_FRAGMENT);
        for (String line : shown(err)) {
            if (line.startsWith(prefix)) {
                assertThat(line).as("a message as the terminal shows it; stderr: %s", err).doesNotContain(PROGRESS_FRAGMENT);
            }
        }
    }

    private String marker() {
        return "-Drdflux.test.marker=" + dir;
    }
}
