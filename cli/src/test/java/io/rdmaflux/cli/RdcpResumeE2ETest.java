package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guide's resume recipe, as users run it ({@code bin/rdcp} against the loopback sshd):
 * Ctrl-C on a copy into a destination that did not exist, then the same command with
 * {@code --sync}. The copy must land where the first run would have put it (never
 * {@code dst/src}), keep what arrived, resume the large file after its kept part, and
 * {@code -v} must say how much was sent.
 */
class RdcpResumeE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final long BIG = 128L << 20;
    private static final Pattern SENT = Pattern.compile("(?m)^rdcp: sent (\\d+) bytes \\(.*\\) for (\\d+) bytes");

    @TempDir
    Path dir;

    private Path tool;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void wrapper() throws IOException {
        tool = RemoteRdflux.in(dir);
    }

    /** {@code form}: how SRC and DST are written; each has its documented destination. */
    @ParameterizedTest
    @ValueSource(strings = {"src dst", "src/ dst", "src dst/"})
    void ctrlCThenTheSameCommandWithSyncResumesWhereTheFirstRunWouldHaveCopied(String form) throws Exception {
        Path src = tree();
        String srcArg = form.startsWith("src/") ? src + "/" : src.toString();
        String dstArg = "h2:" + dir.resolve("dst") + (form.endsWith("dst/") ? "/" : "");
        // rsync's rules: 'src dst/' makes dst/src; otherwise dst is the copy.
        Path dest = form.endsWith("dst/") ? dir.resolve("dst/src") : dir.resolve("dst");
        Path staged = dest.resolveSibling(".rdflux-" + dest.getFileName() + ".part");

        Path part = cut(srcArg, dstArg, staged);
        long kept = Files.size(part);
        assertThat(dest).as("nothing under the destination's name").doesNotExist();
        assertThat(staged.resolve("zz-big.bin")).as("the cut file is never under its name").doesNotExist();

        Tool again = rdcp("-v", "-r", "--sync", srcArg, dstArg);
        assertThat(again.exitCode(LIMIT)).as(again.err()).isZero();

        assertThat(RdcpE2ETest.listing(dest)).isEqualTo(RdcpE2ETest.listing(src));
        assertThat(dest.resolve("src")).as("not copied into dst/src").doesNotExist();
        assertThat(staged).doesNotExist();
        assertThat(again.err()).containsPattern("files already up to date");
        Matcher m = SENT.matcher(again.err());
        assertThat(m.find()).as(again.err()).isTrue();
        long sent = Long.parseLong(m.group(1));
        assertThat(Long.parseLong(m.group(2))).as("the big file written whole, its kept part included").isGreaterThanOrEqualTo(BIG);
        // About the rest of the big file: what was kept is not sent again (entries and small files aside).
        assertThat(sent).as(again.err()).isLessThan(BIG - kept + (2L << 20));
    }

    @Test
    void aKeptPartAlteredAtTheDestinationIsNotTrusted() throws Exception {
        Path src = tree();
        String dstArg = "h2:" + dir.resolve("dst");
        Path dest = dir.resolve("dst");
        Path part = cut(src.toString(), dstArg, dir.resolve(".rdflux-dst.part"));
        try (RandomAccessFile f = new RandomAccessFile(part.toFile(), "rw")) {
            f.seek(f.length() / 2);
            int b = f.read();
            f.seek(f.length() / 2);
            f.write(b ^ 0x5a);
        }

        Tool again = rdcp("-r", "--sync", src.toString(), dstArg);
        assertThat(again.exitCode(LIMIT)).as(again.err()).isEqualTo(ExitCode.PARTIAL);
        assertThat(again.err()).contains("rdcp: not copied: zz-big.bin: not resumed: the part of it kept here")
                .contains("run the copy again to send the file whole").doesNotContain("Exception");
        // The stream ended: the copy took its name, the file that failed named; the part is gone.
        assertThat(dest.resolve("zz-big.bin")).doesNotExist();
        assertThat(dest.resolve(".rdflux-zz-big.bin.part")).doesNotExist();

        // dst exists now: its contents are what the next run copies (src/), as for any existing dst.
        Tool third = rdcp("-r", "--sync", src + "/", dstArg);
        assertThat(third.exitCode(LIMIT)).as(third.err()).isZero();
        assertThat(RdcpE2ETest.listing(dest)).isEqualTo(RdcpE2ETest.listing(src));
        assertThat(dir.resolve(".rdflux-dst.part")).doesNotExist();
    }

    @Test
    void aSingleFileCutByCtrlCIsResumedBySyncUnderAnotherName() throws Exception {
        Path src = dir.resolve("big.iso");
        Files2.random(src, BIG, 11);
        Path out = Files.createDirectories(dir.resolve("out"));
        Path dest = out.resolve("name.iso");
        String dstArg = "h2:" + dest;

        // Written under a temporary name beside the destination until it ends.
        Tool t = rdcp("--frame-size", "4K", "--slots", "2", src.toString(), dstArg);
        await("the file half way").atMost(LIMIT).pollInterval(Duration.ofMillis(10))
                .until(() -> !t.process.isAlive() || largestIn(out) > BIG / 8);
        assertThat(t.process.isAlive()).as("still copying; rdcp said: " + t.err()).isTrue();
        new ProcessBuilder("kill", "-INT", Long.toString(t.process.pid())).start().waitFor();
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);
        Path part = out.resolve(".rdflux-name.iso.part");
        await("the cut file kept as its part").atMost(Duration.ofSeconds(20)).until(() -> Files.exists(part));
        long kept = Files.size(part);
        assertThat(kept).isBetween(1L, BIG - 1);
        assertThat(dest).as("never under its name").doesNotExist();

        Tool again = rdcp("-v", "--progress", "--sync", src.toString(), dstArg);
        assertThat(again.exitCode(LIMIT)).as(again.err()).isZero();

        assertThat(Files2.sha256(dest)).isEqualTo(Files2.sha256(src));
        // The kept prefix counts as done: the progress ends at the file's length, not below it.
        String last = "";
        for (String line : again.err().split("[\r\n]")) {
            if (line.contains(" / ") && line.contains("%")) {
                last = line;
            }
        }
        assertThat(last).as("the last progress line; stderr: %s", again.err()).contains(" 100%");
        assertThat(part).doesNotExist();
        Matcher m = SENT.matcher(again.err());
        assertThat(m.find()).as(again.err()).isTrue();
        assertThat(Long.parseLong(m.group(2))).as("written whole, its kept part included").isEqualTo(BIG);
        assertThat(Long.parseLong(m.group(1))).as("about the rest: " + again.err()).isLessThan(BIG - kept + (2L << 20));
    }

    /** The size of the largest file in {@code d} (a copy in progress is under a temporary name there). */
    private static long largestIn(Path d) throws IOException {
        long most = 0;
        try (var s = Files.list(d)) {
            for (Path p : s.toList()) {
                most = Math.max(most, Files.isRegularFile(p) ? Files.size(p) : 0);
            }
        } catch (java.nio.file.NoSuchFileException gone) {
            return most;   // a temporary name renamed while listed
        }
        return most;
    }

    /** Runs the copy slowly, Ctrl-C once the big file is half way; returns its kept part. */
    private Path cut(String srcArg, String dstArg, Path staged) throws Exception {
        // Small frames and two in flight: slow enough to be caught in the middle.
        Tool t = rdcp("-r", "--frame-size", "4K", "--slots", "2", srcArg, dstArg);
        Path inProgress = staged.resolve("zz-big.bin");
        await("the big file half way").atMost(LIMIT).pollInterval(Duration.ofMillis(10))
                .until(() -> !t.process.isAlive() || Files.exists(inProgress) && Files.size(inProgress) > BIG / 8);
        assertThat(t.process.isAlive()).as("still copying; rdcp said: " + t.err()).isTrue();
        new ProcessBuilder("kill", "-INT", Long.toString(t.process.pid())).start().waitFor();
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);

        Path part = staged.resolve(".rdflux-zz-big.bin.part");
        await("the cut file kept as its part").atMost(Duration.ofSeconds(20)).until(() -> Files.exists(part));
        assertThat(Files.size(part)).isBetween(1L, BIG - 1);
        return part;
    }

    /** Small files (copied first) and a large one, last by name. */
    private Path tree() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/small"));
        for (int i = 0; i < 100; i++) {
            Files.writeString(src.resolve(String.format("f%03d", i)), "file " + i);
        }
        Files2.random(dir.resolve("src/zz-big.bin"), BIG, 9);
        Files.setPosixFilePermissions(dir.resolve("src/zz-big.bin"), PosixFilePermissions.fromString("rw-r-----"));
        return dir.resolve("src");
    }

    private Tool rdcp(String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir), all.toArray(String[]::new));
    }
}
