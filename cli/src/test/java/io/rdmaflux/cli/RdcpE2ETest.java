package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * rdcp as users run it ({@code bin/rdcp}) against a real OpenSSH server on 127.0.0.1/.2/.3
 * (hosts h1, h2, h3) whose "remote" tool is this build's {@code bin/rdflux}. Trees are compared
 * after each copy by a listing of type, mode, size, mtime, link target and content hash.
 * Every process of a test carries its temporary directory in its command line, so "nothing
 * left running" looks at those only.
 */
class RdcpE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private Path tool;

    @BeforeEach
    void wrapper() throws IOException {
        tool = remoteTool("rdflux on remote", "");
    }

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @Test
    void pushPullRemoteToRemoteAndLocalCopiesAreExact() throws Exception {
        Path src = tree(dir.resolve("src"));
        Map<String, String> want = listing(src);
        Path remote = Files.createDirectory(dir.resolve("remote"));

        // Push into a destination that does not exist: it becomes the copy.
        assertCopied(rdcp("-r", src.toString(), "h2:" + remote.resolve("pushed")));
        assertThat(listing(remote.resolve("pushed"))).isEqualTo(want);

        // Push into an existing directory: the copy is made inside it, under the source's name.
        Path existing = Files.createDirectory(remote.resolve("existing dir"));
        assertCopied(rdcp("-r", "--zstd", "--encrypt", src.toString(), "h3:" + existing));
        assertThat(listing(existing.resolve("src"))).isEqualTo(want);

        // Pull, trailing slash: the contents, into an existing directory.
        Path pulled = Files.createDirectory(dir.resolve("pulled"));
        assertCopied(rdcp("-r", "h2:" + remote.resolve("pushed") + "/", pulled.toString()));
        assertThat(listing(pulled)).isEqualTo(want);

        // Remote to remote: the data goes from h2 to h3 directly.
        Tool r2r = rdcp("-r", "--progress", "h2:" + remote.resolve("pushed"), "h3:" + remote.resolve("r2r"));
        assertCopied(r2r);
        assertThat(listing(remote.resolve("r2r"))).isEqualTo(want);
        assertThat(r2r.err()).as("the last progress line").contains("306/306 files");

        // Local to local, no ssh.
        assertCopied(rdcp("-r", src.toString(), dir.resolve("local").toString()));
        assertThat(listing(dir.resolve("local"))).isEqualTo(want);
    }

    @Test
    void syncSendsOnlyWhatChangedAndDeleteRemovesWhatIsGone() throws Exception {
        Path src = tree(dir.resolve("src"));
        Path dst = dir.resolve("dst");
        assertCopied(rdcp("-r", src + "/", "h2:" + dst));
        Object untouched = Files.getAttribute(dst.resolve("small/f0007"), "unix:ino");

        // A change of content with the same size, a new file, a file removed.
        Files.writeString(src.resolve("small/f0003"), "changed!", StandardCharsets.UTF_8);
        Files.setLastModifiedTime(src.resolve("small/f0003"), FileTime.from(Instant.parse("2021-01-01T00:00:00Z")));
        Files.writeString(src.resolve("new file"), "new", StandardCharsets.UTF_8);
        Files.delete(src.resolve("small/f0005"));

        // Without --delete the removed file stays.
        Tool sync = rdcp("-r", "--sync", "-v", src + "/", "h2:" + dst);
        assertCopied(sync);
        // The files sent and their data; the rest were kept.
        assertThat(sync.err()).containsPattern("rdcp: copied 2 files, 11 bytes \\(11 B\\) in [0-9.]+ s; "
                + "[0-9]+ files already up to date\n");
        assertThat(dst.resolve("small/f0005")).exists();
        assertThat(Files.getAttribute(dst.resolve("small/f0007"), "unix:ino")).as("an unchanged file is not rewritten")
                .isEqualTo(untouched);
        assertThat(Files.readString(dst.resolve("small/f0003"))).isEqualTo("changed!");

        assertCopied(rdcp("-r", "--sync", "--delete", src + "/", "h2:" + dst));
        assertThat(listing(dst)).isEqualTo(listing(src));
        assertThat(Files.getAttribute(dst.resolve("small/f0007"), "unix:ino")).isEqualTo(untouched);

        // A pull with --checksum finds nothing to do after that: same listing, same inodes.
        Path back = dir.resolve("back");
        assertCopied(rdcp("-r", "h2:" + dst + "/", back.toString()));
        Object inode = Files.getAttribute(back.resolve("new file"), "unix:ino");
        Tool nothing = rdcp("-r", "--checksum", "-v", "h2:" + dst + "/", back.toString());
        assertCopied(nothing);
        assertThat(nothing.err()).containsPattern("rdcp: copied 0 files, 0 bytes \\(0 B\\) in [0-9.]+ s; "
                + "[0-9]+ files already up to date\n");
        assertThat(Files.getAttribute(back.resolve("new file"), "unix:ino")).isEqualTo(inode);
        assertThat(listing(back)).isEqualTo(listing(src));
    }

    @Test
    void severalSourcesGoIntoOneDirectoryEachUnderItsName() throws Exception {
        Path a = tree(dir.resolve("a"));
        Path file = Files.writeString(dir.resolve("-file name"), "one file");
        Path into = Files.createDirectory(dir.resolve("into"));
        Files.writeString(into.resolve("kept"), "kept");

        assertCopied(rdcp("-r", a.toString(), file.toString(), "h2:" + into));

        assertThat(listing(into.resolve("a"))).isEqualTo(listing(a));
        assertThat(Files.readString(into.resolve("-file name"))).isEqualTo("one file");
        assertThat(Files.readString(into.resolve("kept"))).as("the directory's own entries are left alone")
                .isEqualTo("kept");

        Tool slash = rdcp("-r", a + "/", file.toString(), "h2:" + into);
        assertThat(slash.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(slash.err()).contains("has none");
    }

    @Test
    void anUnreadableFileIsNamedTheRestArrivesAndTheExitIs23() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("a-readable"), "a");
        Files.writeString(src.resolve("locked file"), "secret");
        Files.writeString(src.resolve("z-readable"), "z");
        Files.setPosixFilePermissions(src.resolve("locked file"), PosixFilePermissions.fromString("---------"));
        Path remoteTool = tool;
        if (Files.isReadable(src.resolve("locked file"))) {
            // Root reads anything: the remote end runs without the capabilities to.
            assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                    "running as root without setpriv (util-linux): cannot make a file unreadable");
            remoteTool = remoteTool("rdflux unprivileged", "/usr/bin/setpriv --bounding-set -dac_override,-dac_read_search ");
        }
        Path dst = dir.resolve("dst");

        Tool t = Tool.start(dir, "rdcp", "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(remoteTool.toString()),
                "-r", "h2:" + src, dst.toString());

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.PARTIAL);
        assertThat(t.err()).contains("locked file: cannot open it: permission denied");
        // Named once, then summed up (the summary repeated the first failure before).
        assertThat(t.err().lines().filter(l -> l.contains("locked file"))).hasSize(1);
        assertThat(t.err().lines().toList()).last().isEqualTo("rdcp: partial transfer: what is named above did not arrive");
        assertThat(Files.readString(dst.resolve("a-readable"))).isEqualTo("a");
        assertThat(Files.readString(dst.resolve("z-readable"))).isEqualTo("z");
        assertThat(dst.resolve("locked file")).doesNotExist();
    }

    /**
     * A path longer than a tree stream carries (4096 bytes: here 20 nested 250-byte names) is
     * legitimate data: that entry fails by name on the sending side, the rest arrives, exit 23.
     */
    @Test
    void aPathTooLongForTheTreeFormatIsNamedTheRestArrivesAndTheExitIs23() throws Exception {
        Path src = Files.createDirectories(dir.resolve("long"));
        Files.writeString(src.resolve("top.txt"), "top");
        Path dst = dir.resolve("long-copy");
        try {
            // Built with relative mkdirs: no single path given to the kernel reaches PATH_MAX.
            shell(src, "mkdir deep && cd deep && for i in $(seq -w 1 20); do n=$i$(printf 'x%.0s' $(seq 1 248));"
                    + " mkdir \"$n\" && cd \"$n\" || exit 1; done; echo leaf > leaf.txt");
            Tool t = rdcp("-r", src.toString(), dst.toString());
            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.PARTIAL);
            assertThat(t.err()).contains("rdcp: not copied: deep/.../17" + "x".repeat(248) + ": not copied, nor anything"
                    + " below it: its path (shortened here) is 4271 bytes, longer than the 4096 bytes a tree stream carries");
            assertThat(t.err()).doesNotContain("refused tree stream");
            assertThat(Files.readString(dst.resolve("top.txt"))).isEqualTo("top");
        } finally {
            // Java cannot delete paths past PATH_MAX; rm works down the tree relative to each directory.
            shell(dir, "rm -rf long long-copy");
        }
    }

    private static void shell(Path cwd, String script) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", script).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as(script).isTrue();
        assertThat(p.exitValue()).as(script + ": " + out).isZero();
    }

    @Test
    void sshFailuresAreOneLineNamingTheHostWithExit69() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("f"), "f");

        // Nothing listens on port 1: the connection is refused.
        Tool refused = Tool.start(dir, "rdcp", "-e", sshd.rsh() + " -o Port=1", "--rdflux-path",
                ShellWords.quote(tool.toString()), "-r", src.toString(), "h2:" + dir.resolve("dst"));
        assertThat(refused.exitCode(LIMIT)).as(refused.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(refused.err().strip()).startsWith("rdcp: h2: ssh connection refused").doesNotContain("\n")
                .doesNotContain("Exception");

        Tool missing = Tool.start(dir, "rdcp", "-e", sshd.rsh(), "--rdflux-path", dir.resolve("no-such-rdflux")
                .toString(), "-r", "h3:" + src, dir.resolve("dst").toString());
        assertThat(missing.exitCode(LIMIT)).as(missing.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(missing.err().strip()).startsWith("rdcp: h3: ").contains("not found there").doesNotContain("\n");
        assertThat(dir.resolve("dst")).doesNotExist();
    }

    @Test
    void ctrlCMidCopyCancelsBothEndsAndLeavesNoPartialFile() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files2.random(src.resolve("big.bin"), 256L << 20, 3);
        Path dst = dir.resolve("dst");
        // Small frames and two in flight: slow enough to be caught in the middle.
        Tool t = rdcp("-r", "--frame-size", "4K", "--slots", "2", src.toString(), "h2:" + dst);
        // dst is made by the copy: staged beside its name until complete.
        Path staged = dir.resolve(".rdflux-dst.part");
        Path big = staged.resolve("big.bin");
        awaitInProgress(t, big);
        new ProcessBuilder("kill", "-INT", Long.toString(t.process.pid())).start().waitFor();

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(t.err()).as("the receiving end's own reason, then the interruption")
                .containsPattern("(?m)^rdcp: h2: .*interrupted.*\\nrdcp: interrupted by SIGINT$");
        // Nothing partial under its name: what arrived is kept as the file's part, for a resume
        // (RdcpResumeE2ETest), and nothing else is left.
        Path part = staged.resolve(".rdflux-big.bin.part");
        await("the partial file kept as its part").atMost(Duration.ofSeconds(20))
                .until(() -> temporaries(staged).equals(List.of(part)) && !Files.exists(big));
        assertThat(temporaries(staged)).as("only the part").containsExactly(part);
        assertThat(big).as("the partial file is not under its name").doesNotExist();
        assertThat(dst).as("nothing under the destination's name").doesNotExist();
    }

    @Test
    void theReceivingEndKilledMidCopyIsCutShortAndSyncResumes() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("a-small"), "small");
        Files2.random(src.resolve("big.bin"), 256L << 20, 4);
        Path dst = dir.resolve("dst");
        Tool t = rdcp("-r", "--frame-size", "4K", "--slots", "2", src + "/", "h2:" + dst);
        Path staged = dir.resolve(".rdflux-dst.part");
        awaitInProgress(t, staged.resolve("big.bin"));
        List<ProcessHandle> agents = marked().stream()
                .filter(p -> p.info().command().orElse("").endsWith("/java")
                        && p.info().commandLine().orElse("").contains(" agent")).toList();
        assertThat(agents).as("the receiving agent's JVM; rdcp said: " + t.err()).hasSize(1);
        agents.get(0).destroyForcibly();

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(t.err()).as("the receiving end's own reason").containsPattern("(?m)^rdcp: h2: ");
        // Killed outright, the end could not remove the partial file, written under its own name
        // in the directory the copy created (staged beside dst): it has not got the source's mtime,
        // so --sync resends it.
        assertThat(dst).doesNotExist();
        assertThat(Files.getLastModifiedTime(staged.resolve("big.bin")))
                .isNotEqualTo(Files.getLastModifiedTime(src.resolve("big.bin")));

        assertCopied(rdcp("-r", "--sync", src + "/", "h2:" + dst));
        assertThat(Files2.sha256(dst.resolve("big.bin"))).isEqualTo(Files2.sha256(src.resolve("big.bin")));
        assertThat(Files.readString(dst.resolve("a-small"))).isEqualTo("small");
        assertThat(staged).doesNotExist();
    }

    @Test
    void aFullDestinationDiskFailsTheFileNamedAndLeavesNoPartialFile() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        // Larger than what the sink hands to its small-file writer threads (64 KiB), so that it is
        // written in stream order, before big.bin: a gathered file could still wait for a writer
        // when big.bin fills the disk, and then rightly never be put in place.
        Files2.random(src.resolve("a-small"), 100 << 10, 4);
        // Smaller than the file system (a file larger than a whole file system fails by name up
        // front, docs/tree-format.md), larger than what is left of it once the filler is there.
        Files2.random(src.resolve("big.bin"), 3L << 20, 5);
        // A real ENOSPC needs a small file system: a 4 MiB tmpfs (root, as in CI). ulimit -f would
        // give EFBIG instead, and a loop device needs mkfs and more privileges than this.
        Path fs = Files.createDirectories(dir.resolve("small fs"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", fs.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assumeTrue(mount.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && mount.exitValue() == 0,
                "cannot mount a small tmpfs for a full disk (needs root): " + said);
        try {
            Files2.random(fs.resolve("filler"), 2L << 20, 6);
            Path dst = fs.resolve("dst");
            Tool t = rdcp("-r", src + "/", "h2:" + dst);

            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.IO);
            assertThat(t.err()).contains("cannot write 'big.bin' in " + dst + ": disk full")
                    .doesNotContain("Exception");
            // Said once, by the end that failed: not again as what the sending end heard of it.
            assertThat(t.err().lines().filter(l -> l.contains("disk full"))).as(t.err()).hasSize(1);
            assertThat(t.err()).doesNotContain("receiver reported");
            // dst is made by the copy: what arrived is staged beside it, for a re-run.
            Path staged = fs.resolve(".rdflux-dst.part");
            assertThat(dst).doesNotExist();
            assertThat(staged.resolve("big.bin")).as("never renamed into place").doesNotExist();
            assertThat(staged.resolve("a-small")).as("completed before the disk filled").hasSameBinaryContentAs(src.resolve("a-small"));
            await("the partial file removed").atMost(Duration.ofSeconds(20)).until(() -> temporaries(staged).isEmpty());
            assertThat(temporaries(staged)).as("the partial file is removed").isEmpty();
        } finally {
            new ProcessBuilder("umount", "-l", fs.toString()).inheritIO().start().waitFor(30,
                    java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /**
     * Waits until {@code file} is being written (under its own name in a fresh directory, or a
     * temporary one). More than a poll: it stops early when rdcp has ended, and says what rdcp said.
     */
    private static void awaitInProgress(Tool t, Path file) throws Exception {
        await("a file in progress at " + file).atMost(LIMIT).pollInterval(Duration.ofMillis(10))
                .until(() -> inProgress(file) || !t.process.isAlive());
        assertThat(inProgress(file)).as("a file in progress at the destination; rdcp said: " + t.err()).isTrue();
    }

    private static boolean inProgress(Path file) throws IOException {
        return Files.exists(file) || !temporaries(file.getParent()).isEmpty();
    }

    private static List<Path> temporaries(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            // (root itself may be a staged directory, .rdflux-NAME.part)
            return s.filter(p -> !p.equals(root) && p.getFileName().toString().startsWith(".rdflux-")).toList();
        }
    }

    @Test
    void aDirectoryWithoutRecursiveFailsWithAHint() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        for (String from : List.of(src.toString(), "h2:" + src)) {
            Tool t = rdcp(from, dir.resolve("dst").toString());
            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.NO_INPUT);
            // rdcp's own words: -r, not the tree source's option.
            assertThat(t.err()).contains(src + " is a directory (use -r to copy directories)").doesNotContain("recursive");
        }
    }

    @Test
    void aFileWhereTheDestinationNeedsADirectoryIsNamedAsNotADirectory() throws Exception {
        Path src = tree(dir.resolve("src"));
        Path zero = Files.writeString(dir.resolve("zero"), "", StandardCharsets.UTF_8);
        Tool t = rdcp("-r", src.toString(), "h2:" + zero.resolve("x"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.CANT_CREATE);
        assertThat(t.err()).contains(zero + " is not a directory").doesNotContain("does not exist");
    }

    /** A FIFO in the tree is left out (Java cannot make one), and said so: never silently. */
    @Test
    void aSpecialFileIsSkippedWithAWarning() throws Exception {
        Path src = Files.createDirectories(dir.resolve("spec"));
        Files.writeString(src.resolve("a"), "a");
        Process p = new ProcessBuilder("mkfifo", src.resolve("fifo").toString()).start();
        assumeTrue(p.waitFor() == 0, "mkfifo is not available");
        Path remote = dir.resolve("pushed");
        Tool t = rdcp("-r", src.toString(), "h1:" + remote);
        assertCopied(t);
        assertThat(t.err()).contains("fifo: skipped: a FIFO (special files are not copied)");
        assertThat(Files.readString(remote.resolve("a"))).isEqualTo("a");
        assertThat(remote.resolve("fifo")).doesNotExist();
    }

    /**
     * An agent past its start timeout is left to finish its login (docs/remote.md), but its
     * ssh process must not outlive rdcp: rdcp waits for it, within the grace.
     */
    @Test
    void anAgentStillLoggingInWhenTheCopyGivesUpDoesNotOutliveRdcp() throws Exception {
        Path slow = dir.resolve("slow rdflux");
        Files.writeString(slow, "#!/bin/sh\nsleep 6\nexec " + ShellWords.quote(tool.toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(slow, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path in = Files.writeString(dir.resolve("in.txt"), "x");
        Tool t = Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir), "-e", sshd.rsh(), "--rdflux-path",
                ShellWords.quote(slow.toString()), "--start-timeout", "2", in.toString(), "h1:" + dir.resolve("out"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isNotZero();
        // The "waiting up to N s" note is printed only while more than 1 s of the ssh grace is
        // left, which a loaded machine can use up before rdcp gets there: what matters is below.
        assertThat(t.err()).contains("did not start within 2 s");
        assertThat(marked().stream().filter(p -> p.info().command().orElse("").endsWith("/ssh")).toList())
                .as("ssh processes left by rdcp").isEmpty();
    }

    @Test
    void aTrailingSlashMeansADirectoryOnBothSidesAsCpAndRsync() throws Exception {
        Path file = Files.writeString(dir.resolve("in.txt"), "data", StandardCharsets.UTF_8);
        Path dst = Files.createDirectory(dir.resolve("dst"));

        // DST/ that does not exist is made, and the file copied into it (rsync), pushed, with --sync, and locally.
        assertCopied(rdcp(file.toString(), "h2:" + dst.resolve("nodir") + "/"));
        assertThat(dst.resolve("nodir")).isDirectory();
        assertThat(dst.resolve("nodir/in.txt")).hasContent("data");
        assertCopied(rdcp("--sync", file.toString(), "h2:" + dst.resolve("synced") + "/"));
        assertThat(dst.resolve("synced/in.txt")).hasContent("data");
        assertCopied(rdcp(file.toString(), dst.resolve("local") + "/"));
        assertThat(dst.resolve("local/in.txt")).hasContent("data");

        // SRC/ that is a file is refused, as cp refuses it, and nothing is made.
        for (String to : List.of("h2:" + dst.resolve("x9"), dst.resolve("x9").toString())) {
            Tool t = rdcp(file + "/", to);
            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.NO_INPUT);
            assertThat(t.err()).contains("in.txt/: not a directory");
            assertThat(dst.resolve("x9")).doesNotExist();
        }
    }

    @Test
    void aLocalSyncGetsItsListingOverLoopbackTcpWhateverTheTransport() throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.writeString(src.resolve("a"), "a", StandardCharsets.UTF_8);
        // --transport rdma is ignored, as rdcp says, also on a host without RDMA.
        Tool t = rdcp("-r", "--sync", "-v", "--transport", "rdma", src + "/", dir.resolve("dst").toString());
        assertCopied(t);
        assertThat(t.err()).contains("--transport is ignored").contains("connected over tcp 127.0.0.1:");
        assertThat(dir.resolve("dst/a")).hasContent("a");
    }

    /** The tool as the remote host runs it: this JDK, a marker every JVM there carries, and {@code prefix}. */
    private Path remoteTool(String name, String prefix) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n"
                + "export JAVA_HOME=" + ShellWords.quote(System.getProperty("java.home")) + "\n"
                + "export RDFLUX_JAVA_OPTS=" + ShellWords.quote("-Drdflux.test.marker=" + dir) + "\n"
                + "exec " + prefix + ShellWords.quote(Tool.HOME.resolve("bin/rdflux").toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private Tool rdcp(String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir), all.toArray(String[]::new));
    }

    private static void assertCopied(Tool t) {
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
    }

    private List<ProcessHandle> marked() {
        String marker = dir.toString();
        return ProcessHandle.allProcesses().filter(p -> p.isAlive()
                && p.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
    }

    /**
     * A tree with what trips copies up: names with spaces, unicode and a leading dash, a deep
     * path, empty files and directories, links (relative, dangling), modes 0600/0700/0755, old
     * times, a few hundred small files and one of several MiB.
     */
    static Path tree(Path root) throws IOException {
        Files.createDirectories(root.resolve("a/b/c/d/e/f/g/h"));
        Files.writeString(root.resolve("a/b/c/d/e/f/g/h/deep.txt"), "deep");
        Files.writeString(root.resolve("name with spaces.txt"), "spaces");
        Files.writeString(root.resolve("ünïcødé ✓.txt"), "unicode");
        Files.writeString(root.resolve("-leading-dash"), "dash");
        Files.createFile(root.resolve("empty"));
        Files.createDirectories(root.resolve("empty dir"));
        Files.createDirectories(root.resolve("small"));
        for (int i = 0; i < 300; i++) {
            Files.writeString(root.resolve(String.format("small/f%04d", i)), "file " + i + " ".repeat(i % 50));
        }
        Files2.random(root.resolve("large.bin"), 6 * 1048576 + 5, 7);
        Files.createSymbolicLink(root.resolve("link to large"), Path.of("large.bin"));
        Files.createSymbolicLink(root.resolve("dangling"), Path.of("no/such/target"));
        Files.setPosixFilePermissions(root.resolve("name with spaces.txt"), PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(root.resolve("-leading-dash"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(root.resolve("a/b"), PosixFilePermissions.fromString("rwx------"));
        FileTime old = FileTime.from(Instant.parse("2001-02-03T04:05:06.789Z"));
        Files.setLastModifiedTime(root.resolve("ünïcødé ✓.txt"), old);
        Files.setLastModifiedTime(root.resolve("empty dir"), old);
        Files.setLastModifiedTime(root.resolve("a/b/c"), old);
        return root;
    }

    /** Every entry under {@code root}: type, mode, size, mtime (ms), link target, content hash. */
    static Map<String, String> listing(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                String rel = root.relativize(p).toString();
                Map<String, Object> a = Files.readAttributes(p, "unix:mode,size,lastModifiedTime",
                        LinkOption.NOFOLLOW_LINKS);
                String kind = Files.isSymbolicLink(p) ? "link -> " + Files.readSymbolicLink(p)
                        : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir" : "file " + Files2.sha256(p);
                long mtime = ((FileTime) a.get("lastModifiedTime")).toMillis();
                m.put(rel.isEmpty() ? "." : rel, kind + " mode " + Integer.toOctalString((Integer) a.get("mode") & 07777)
                        + (kind.startsWith("file") ? " size " + a.get("size") : "") + " mtime " + mtime);
            }
        }
        return m;
    }
}
