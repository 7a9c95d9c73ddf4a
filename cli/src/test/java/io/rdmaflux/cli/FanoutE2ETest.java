package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.RemoteAgent;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdcp SRC --to DEST --to DEST...} as users run it, against the loopback sshd's three
 * hosts (h1, h2, h3 on 127.0.0.1/.2/.3): the chain, a host that cannot be reached, a host
 * killed mid-copy, and Ctrl-C. Every process of a test carries its temporary directory in its
 * command line, so "nothing left running" looks at those only (and at sshd's sessions).
 */
class FanoutE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(180);
    /** The file a copy slowed to 4 MiB/s is caught in the middle of: ~3 s to send. */
    private static final long BIG_AT_4M = 12L << 20;

    @TempDir
    Path dir;

    private Path tool;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void wrapper() throws IOException {
        tool = RemoteRdflux.in(dir);
    }

    @Test
    void aTreeToThreeHostsArrivesIdenticalAtEach() throws Exception {
        Path src = RdcpE2ETest.tree(dir.resolve("src"));
        Map<String, String> want = RdcpE2ETest.listing(src);
        Path existing = Files.createDirectory(dir.resolve("at h2"));

        Tool t = rdcp(sshd.rsh(), "-r", "-v", "--progress", "--zstd", "--encrypt", src.toString(),
                "--to", "h1:" + dir.resolve("at h1"), "--to", "h2:" + existing, "--to", "h3:" + dir.resolve("at h3"));

        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(RdcpE2ETest.listing(dir.resolve("at h1"))).isEqualTo(want);
        assertThat(RdcpE2ETest.listing(existing.resolve("src"))).as("inside an existing directory, as rdcp does")
                .isEqualTo(want);
        assertThat(RdcpE2ETest.listing(dir.resolve("at h3"))).isEqualTo(want);
        // -v: a line per host at the end.
        for (String h : List.of("h1", "h2", "h3")) {
            assertThat(t.err()).containsPattern("(?m)^rdcp: " + h + ": 30[0-9] files, [0-9]+ bytes in place at ");
        }
        assertThat(t.err()).contains("to 3 hosts");
        // --progress: each host's files, on the last progress line as on every one.
        assertThat(t.err()).contains("306/306 files").contains("files at h1 306, h2 306, h3 306");
    }

    @Test
    void syncWithDeleteBringsThreeHostsInDifferentStatesToTheSource() throws Exception {
        Path src = RdcpE2ETest.tree(dir.resolve("src"));
        Map<String, String> want = RdcpE2ETest.listing(src);
        Path empty = dir.resolve("one");
        Path current = dir.resolve("two");
        Path changed = dir.resolve("three");
        copyAsIs(src, current);
        copyAsIs(src, changed);
        Files.writeString(changed.resolve("small/f0007"), "changed here");
        Files.writeString(changed.resolve("extra.txt"), "not at the source");

        Tool t = rdcp(sshd.rsh(), "-r", "-v", "--sync", "--delete", src + "/", "--to", "h1:" + empty,
                "--to", "h2:" + current, "--to", "h3:" + changed);

        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        for (Path p : List.of(empty, current, changed)) {
            assertThat(RdcpE2ETest.listing(p)).as(p + "; rdcp said: " + t.err()).isEqualTo(want);
        }
        // h1 lacks everything, so everything travels, once, and each host writes it: none keeps a file.
        for (String h : List.of("h1", "h2", "h3")) {
            assertThat(t.err()).containsPattern("(?m)^rdcp: " + h + ": 30[0-9] files, [0-9]+ bytes in place at .*, 0 kept$");
        }

        // Now that all three are current, a sync sends no file's data: each host keeps them all.
        Files.writeString(src.resolve("new.txt"), "new at the source");
        Tool again = rdcp(sshd.rsh(), "-r", "-v", "--sync", "--delete", src + "/", "--to", "h1:" + empty,
                "--to", "h2:" + current, "--to", "h3:" + changed);

        assertThat(again.exitCode(LIMIT)).as(again.err()).isZero();
        Map<String, String> now = RdcpE2ETest.listing(src);
        for (Path p : List.of(empty, current, changed)) {
            assertThat(RdcpE2ETest.listing(p)).as(p + "; rdcp said: " + again.err()).isEqualTo(now);
        }
        for (String h : List.of("h1", "h2", "h3")) {
            assertThat(again.err()).containsPattern("(?m)^rdcp: " + h + ": 1 file, 17 bytes in place at .*, 30[0-9] kept$");
        }
        assertThat(again.err()).containsPattern("(?m)^rdcp: sent [0-9]+ bytes .* for 17 bytes ")
                .containsPattern("(?m)^rdcp: copied 1 file, 17 bytes .* to 3 hosts; 30[0-9] files already up to date$");
    }

    /**
     * The pipeline form through real agents: h2's job sends a file with a {@code send} sink whose
     * {@code to} lists h1's and h3's receiving agents and a closed port. The agent runs that sink
     * as it is (it does not wait for the coordinator to say where), the two receivers get the
     * file, and the job ends with exit 23 naming the receiver that failed.
     */
    @Test
    void anAgentsSendSinkWithAToListReachesEachReceiverAndNamesTheOneThatFailed() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 3 * 1048576 + 5, 6);
        String key = AgentMessage.newKey();
        RemoteShell shell = RemoteShell.create().rsh(sshd.rsh()).rdfluxPath(ShellWords.quote(tool.toString()));
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
            closed = s.getLocalPort();
        }
        RemoteAgent h1 = shell.startAgent(RemoteHost.parse("h1"));
        RemoteAgent h2 = shell.startAgent(RemoteHost.parse("h2"));
        RemoteAgent h3 = shell.startAgent(RemoteHost.parse("h3"));
        try {
            Map<String, Object> receive = Map.of("type", "receive", "port", 0, "key", key, "transport", "tcp");
            h1.submit(new AgentMessage.Job(Map.of("source", receive,
                    "sink", Map.of("type", "file", "path", dir.resolve("at h1.bin").toString())), 0, false, false)).block(LIMIT);
            h3.submit(new AgentMessage.Job(Map.of("source", receive,
                    "sink", Map.of("type", "file", "path", dir.resolve("at h3.bin").toString())), 0, false, false)).block(LIMIT);
            List<String> to = List.of(h1.dataAddress().block(LIMIT) + ":" + h1.listening().block(LIMIT).port(),
                    "127.0.0.2:" + closed, h3.dataAddress().block(LIMIT) + ":" + h3.listening().block(LIMIT).port());
            h2.submit(new AgentMessage.Job(Map.of("source", Map.of("type", "file", "path", in.toString()),
                    "stages", List.of(Map.of("type", "zstd")),
                    "sink", Map.of("type", "send", "to", to, "key", key, "transport", "tcp")), 0, false, false)).block(LIMIT);

            assertThat(h1.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
            assertThat(h3.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
            Throwable sent = catchThrowable(() -> h2.done().block(LIMIT));
            assertThat(sent).isInstanceOf(RemoteException.class);
            RemoteException e = (RemoteException) sent;
            assertThat(e.remoteStatus()).as(e.getMessage()).isEqualTo(ExitCode.PARTIAL);
            assertThat(e.failures()).singleElement().asString().contains("127.0.0.2:" + closed);
        } finally {
            h1.dispose();
            h2.dispose();
            h3.dispose();
        }
        assertThat(Files2.sha256(dir.resolve("at h1.bin"))).isEqualTo(Files2.sha256(in));
        assertThat(Files2.sha256(dir.resolve("at h3.bin"))).isEqualTo(Files2.sha256(in));
    }

    @Test
    void portWithToIsRefusedSayingWhy() throws Exception {
        Path src = Files.writeString(dir.resolve("f"), "x");

        Tool t = rdcp(sshd.rsh(), "--port", "7000", src.toString(), "--to", "h1:" + dir.resolve("one"));

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.USAGE);
        assertThat(t.err()).contains("--port cannot be used with --to: in a chain each host's receiver listens on a "
                + "free port of its own").doesNotContain("Exception");
        assertThat(dir.resolve("one")).doesNotExist();
    }

    /** {@code cp -a}: the tree with its modes and times, as a host that has a current copy holds it. */
    private static void copyAsIs(Path from, Path to) throws Exception {
        Process cp = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
        assertThat(cp.waitFor()).isZero();
    }

    @Test
    void aHostThatCannotBeReachedIsLeftOutAndTheOthersComplete() throws Exception {
        Path src = RdcpE2ETest.tree(dir.resolve("src"));
        Map<String, String> want = RdcpE2ETest.listing(src);
        String rsh = "ssh -F " + withDeadHost();

        Tool t = rdcp(rsh, "-r", src + "/", "--to", "h1:" + dir.resolve("one"), "--to", "hdead:" + dir.resolve("dead"),
                "--to", "h3:" + dir.resolve("three"));

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(dir.resolve("one")).as(t.err()).exists();
        assertThat(RdcpE2ETest.listing(dir.resolve("one"))).isEqualTo(want);
        assertThat(RdcpE2ETest.listing(dir.resolve("three"))).isEqualTo(want);
        assertThat(dir.resolve("dead")).doesNotExist();
        assertThat(t.err()).contains("rdcp: hdead: ssh connection refused")
                .contains("1 of 3 destinations failed (hdead); the other 2 have the copy")
                .doesNotContain("Exception");
    }

    @Test
    void syncWithAnUnreachableHostInTheMiddleLeavesTheOthersComplete() throws Exception {
        Path src = RdcpE2ETest.tree(dir.resolve("src"));
        Path one = dir.resolve("one");
        Path three = dir.resolve("three");
        copyAsIs(src, one);
        copyAsIs(src, three);
        Files.writeString(src.resolve("new.txt"), "new at the source");
        Map<String, String> want = RdcpE2ETest.listing(src);
        String rsh = "ssh -F " + withDeadHost();

        Tool t = rdcp(rsh, "-r", "-v", "--sync", src + "/", "--to", "h1:" + one, "--to", "hdead:" + dir.resolve("dead"),
                "--to", "h3:" + three);

        // Before, the source waited 120 s for hdead's listing, then failed the copy to every host.
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(RdcpE2ETest.listing(one)).as(t.err()).isEqualTo(want);
        assertThat(RdcpE2ETest.listing(three)).isEqualTo(want);
        assertThat(dir.resolve("dead")).doesNotExist();
        // hdead's missing listing costs the others nothing: only the new file travels.
        for (String h : List.of("h1", "h3")) {
            assertThat(t.err()).containsPattern("(?m)^rdcp: " + h + ": 1 file, 17 bytes in place at .*, 30[0-9] kept$");
        }
        assertThat(t.err()).contains("rdcp: hdead: ssh connection refused")
                .contains("1 of 3 destinations failed (hdead); the other 2 have the copy")
                .doesNotContain("Exception");
    }

    @Test
    void aSourceThatCannotBeReachedEndsEveryHostsWaitAtOnce() throws Exception {
        Path src = RdcpE2ETest.tree(dir.resolve("src"));
        String rsh = "ssh -F " + withDeadHost();

        Tool t = rdcp(rsh, "-r", "hdead:" + src + "/", "--to", "h1:" + dir.resolve("one"), "--to", "h3:" + dir.resolve("three"));

        // Before, each host waited 120 s for a sender that would never come, then was fed again, twice.
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(t.err()).contains("hdead: ssh connection refused")
                .doesNotContain("no sender arrived").doesNotContain("feeding again").doesNotContain("Exception");
        assertThat(dir.resolve("one")).doesNotExist();
        assertThat(dir.resolve("three")).doesNotExist();
    }

    @Test
    void aHostKilledMidCopyFailsAloneAndTheHostsAfterItAreFedAgain() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("a-small"), "small");
        // 12 MiB at 4 MiB/s: h2 is caught with the file under way (its part file shows within
        // the first frames; the copy then has ~3 s to go), and h1's copy and h3's second feed
        // take ~3 s each rather than ~6 s with 24 MiB.
        Files2.random(src.resolve("big.bin"), BIG_AT_4M, 3);
        Map<String, String> want = RdcpE2ETest.listing(src);

        // Slowed down, so that the copy is caught in the middle.
        Tool t = rdcp(sshd.rsh(), "-r", "--bwlimit", "4M", src + "/", "--to", "h1:" + dir.resolve("one"),
                "--to", "h2:" + dir.resolve("two"), "--to", "h3:" + dir.resolve("three"));
        awaitInProgress(t, dir.resolve(".rdflux-two.part/big.bin"));
        List<ProcessHandle> agents = agentsOn("127.0.0.2");
        assertThat(agents).as("h2's agent").isNotEmpty();
        for (ProcessHandle p : agents) {
            new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor();
        }

        assertThat(t.exitCode(LIMIT)).as(t.err()).isNotZero().isNotEqualTo(ExitCode.INTERRUPTED);
        assertThat(RdcpE2ETest.listing(dir.resolve("one"))).isEqualTo(want);
        assertThat(RdcpE2ETest.listing(dir.resolve("three"))).as("fed again after h2 died").isEqualTo(want);
        assertThat(dir.resolve("two")).doesNotExist();
        assertThat(t.err()).contains("feeding again the host cut off by a failure: h3")
                .containsPattern("(?m)^rdcp: h2: ")
                .contains("1 of 3 destinations failed (h2)")
                .doesNotContain("Exception");
    }

    @Test
    void syncWithAHostKilledMidCopyFeedsTheHostsAfterItAgainAgainstTheirOwnListings() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("a-small"), "small");
        Files2.random(src.resolve("big.bin"), BIG_AT_4M, 5);
        Path three = dir.resolve("three");
        copyAsIs(src, three);
        Files.writeString(three.resolve("big.bin"), "an older big.bin");
        Files.writeString(three.resolve("extra.txt"), "not at the source");
        Map<String, String> want = RdcpE2ETest.listing(src);

        Tool t = rdcp(sshd.rsh(), "-r", "-v", "--sync", "--delete", "--bwlimit", "4M", src + "/",
                "--to", "h1:" + dir.resolve("one"), "--to", "h2:" + dir.resolve("two"), "--to", "h3:" + three);
        awaitInProgress(t, dir.resolve(".rdflux-two.part/big.bin"));
        List<ProcessHandle> agents = agentsOn("127.0.0.2");
        assertThat(agents).as("h2's agents").isNotEmpty();
        for (ProcessHandle p : agents) {
            new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor();
        }

        assertThat(t.exitCode(LIMIT)).as(t.err()).isNotZero().isNotEqualTo(ExitCode.INTERRUPTED);
        assertThat(RdcpE2ETest.listing(dir.resolve("one"))).as(t.err()).isEqualTo(want);
        assertThat(RdcpE2ETest.listing(three)).as("fed again after h2 died; rdcp said: " + t.err()).isEqualTo(want);
        assertThat(dir.resolve("two")).doesNotExist();
        // The second chain syncs against h3's listing as it is then: a-small, current there, is kept.
        assertThat(t.err()).contains("feeding again the host cut off by a failure: h3")
                .containsPattern("(?m)^rdcp: h3: 1 file, [0-9]+ bytes in place at .*, 1 kept$")
                .containsPattern("(?m)^rdcp: h2: ")
                .contains("1 of 3 destinations failed (h2)")
                .doesNotContain("Exception");
        // The extension then checks that nothing of this test runs on any host, nor any ssh session.
    }

    @Test
    void ctrlCEndsEveryHostsPartAndLeavesNothingRunning() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files2.random(src.resolve("big.bin"), 64L << 20, 4);

        Tool t = rdcp(sshd.rsh(), "-r", "--bwlimit", "4M", src + "/", "--to", "h1:" + dir.resolve("one"),
                "--to", "h2:" + dir.resolve("two"), "--to", "h3:" + dir.resolve("three"));
        awaitInProgress(t, dir.resolve(".rdflux-three.part/big.bin"));
        t.signal("INT");

        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(t.err()).contains("interrupted by SIGINT").doesNotContain("Exception");
        for (String d : List.of("one", "two", "three")) {
            assertThat(dir.resolve(d)).as("nothing under the destination's name").doesNotExist();
        }
        // The extension then checks that no process of this test and no ssh session is left.
    }

    /** The fixture's client configuration with one more host, hdead: 127.0.0.2 on a port nobody listens on. */
    private Path withDeadHost() throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
            closed = s.getLocalPort();
        }
        Path config = dir.resolve("ssh-config-with-hdead");
        // First: ssh takes the first value it finds for an option.
        Files.writeString(config, "Host hdead\n  HostName 127.0.0.2\n  Port " + closed + "\n\n"
                + Files.readString(sshd.sshConfig(), StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        return config;
    }

    /** The processes an ssh session to {@code address} started (their SSH_CONNECTION says so), of this test. */
    private List<ProcessHandle> agentsOn(String address) {
        String marker = dir.toString();
        return ProcessHandle.allProcesses().filter(p -> p.isAlive()
                && p.info().commandLine().map(c -> c.contains(marker)).orElse(false)
                && sshServerAddress(p).equals(address)).toList();
    }

    private static String sshServerAddress(ProcessHandle p) {
        try {
            String env = Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"), StandardCharsets.ISO_8859_1);
            for (String v : env.split("\0")) {
                if (v.startsWith("SSH_CONNECTION=")) {
                    String[] f = v.substring("SSH_CONNECTION=".length()).split(" ");
                    return f.length == 4 ? f[2] : "";
                }
            }
        } catch (IOException e) {
            // Gone already.
        }
        return "";
    }

    private static void awaitInProgress(Tool t, Path file) throws IOException {
        await("a file in progress at " + file).atMost(LIMIT).pollInterval(Duration.ofMillis(20))
                .until(() -> inProgress(file) || !t.process.isAlive());
        assertThat(inProgress(file)).as("a file in progress at " + file + "; rdcp said: " + t.err()).isTrue();
    }

    private static boolean inProgress(Path file) throws IOException {
        if (Files.exists(file)) {
            return true;
        }
        Path parent = file.getParent();
        if (!Files.isDirectory(parent)) {
            return false;
        }
        try (Stream<Path> s = Files.list(parent)) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith(".rdflux-" + file.getFileName()));
        }
    }

    private Tool rdcp(String rsh, String... args) {
        List<String> all = new ArrayList<>(List.of("-e", rsh, "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir), all.toArray(String[]::new));
    }
}
