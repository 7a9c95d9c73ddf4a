package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.cli.remote.WarmAgents;
import io.rdmaflux.cli.warm.WarmPlace;
import io.rdmaflux.cli.warm.WarmStart;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm agent against the loopback sshd: the first rdcp leaves a daemon in the test's own
 * private directory, the next calls are served by it (it says its pid and session count under
 * -v) and copy the same; racing starts leave one daemon; an idle daemon goes, socket first, and
 * the next call falls back to a JVM and starts a new one; a directory that is not this user's
 * alone is never used, and a peer of another user gets no greeting; Ctrl-C on rdpipe ends the
 * session's remote command and leaves the daemon; one session's --debug lines reach no other
 * session's stderr; rdpipe's remote command sees its own
 * session's environment and its exit status comes back. The test JVM's RDFLUX_WARM_AGENT=no
 * (the parent pom) is overridden for the tools it starts; every daemon is ended after each test.
 */
class WarmAgentE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final Pattern SERVED = Pattern.compile("h1: warm agent \\(pid (\\d+)\\): session (\\d+)");

    @TempDir
    Path dir;

    private Path tool;
    private Path file;
    private Path warmDir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void setUp() throws IOException {
        tool = RemoteRdflux.in(dir);
        file = Files.writeString(dir.resolve("tiny"), "hi\n");
        warmDir = dir.resolve("agent");
    }

    /** Ends the daemons this test left (they would stay their idle time). */
    @AfterEach
    void endDaemons() {
        WarmDaemons.end(warmDir);
    }

    @Test
    void theNextCopiesAreServedByTheDaemonTheFirstLeft() throws Exception {
        Tool first = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("one"));
        assertCopied(first);
        assertThat(first.err()).as("the first call's agent is a JVM of its own").doesNotContain("warm agent (pid");
        long daemon = awaitOneDaemon();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(warmDir, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");

        Tool second = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("two"));
        assertCopied(second);
        assertThat(served(second)).containsExactly(daemon, 1L);
        assertThat(Files.readString(dir.resolve("two"))).isEqualTo("hi\n");

        Tool third = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("three"));
        assertCopied(third);
        assertThat(served(third)).containsExactly(daemon, 2L);
        assertThat(Files.readString(dir.resolve("three"))).isEqualTo("hi\n");
        assertThat(daemons()).hasSize(1);
    }

    /**
     * A new daemon warms up its tree sink before any session: the first session after it starts
     * is the next call's, which would otherwise write its tree interpreted. The JVM's own list of
     * compiled methods (jcmd) shows the sink's code compiled with no session served.
     */
    @Test
    void aNewDaemonHasCompiledTheTreeSinkBeforeItsFirstSession() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();

        CompiledMethods.await(daemon, Duration.ofSeconds(90),
                " io.rdmaflux.connector.tree.TreeParser.", " io.rdmaflux.connector.tree.SmallFileWriters$");
    }

    @Test
    void racingStartsLeaveOneDaemon() throws Exception {
        List<Process> started = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ProcessBuilder pb = new ProcessBuilder(Tool.HOME.resolve("bin/rdflux").toString(), "agent", "--daemon",
                    "--warm", "300", "--warm-dir", warmDir.toString())
                    // In the home directory, as an ssh session's agent starts it: a session elsewhere is declined.
                    .directory(Path.of(System.getProperty("user.home")).toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(file.toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
            started.add(pb.start());
        }
        // The losers find the lock held and exit at once; the winner serves until idle (5 minutes).
        await().atMost(Duration.ofSeconds(90)).until(() -> started.stream().filter(Process::isAlive).count() <= 1);
        List<Process> alive = started.stream().filter(Process::isAlive).toList();
        assertThat(alive).as("one daemon serves").hasSize(1);
        started.stream().filter(p -> !p.isAlive()).forEach(p -> assertThat(p.exitValue()).isZero());
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(socket(), LinkOption.NOFOLLOW_LINKS));

        Tool t = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("one"));
        assertCopied(t);
        assertThat(served(t)).containsExactly(alive.get(0).pid(), 1L);
    }

    @Test
    void twoFirstCallsAtOnceBothCopyAndLeaveOneDaemon() throws Exception {
        Tool a = rdcp("5m", file.toString(), "h1:" + dir.resolve("a"));
        Tool b = rdcp("5m", file.toString(), "h1:" + dir.resolve("b"));
        assertCopied(a);
        assertCopied(b);
        long daemon = awaitOneDaemon();
        Tool c = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("c"));
        assertCopied(c);
        assertThat(served(c).get(0)).isEqualTo(daemon);
        assertThat(daemons()).hasSize(1);
    }

    @Test
    void anIdleDaemonGoesAndTheNextCallStartsAJvmAndANewDaemon() throws Exception {
        assertCopied(rdcp("2s", file.toString(), "h1:" + dir.resolve("one")));
        long old = awaitOneDaemon();
        await().atMost(Duration.ofSeconds(60)).until(() -> daemons().isEmpty());
        assertThat(socket()).as("the socket goes with it").doesNotExist();
        assertThat(lockFiles()).as("its lock file too").isEmpty();

        Tool next = rdcp("2s", "-v", file.toString(), "h1:" + dir.resolve("two"));
        assertCopied(next);
        assertThat(next.err()).doesNotContain("warm agent (pid");
        assertThat(Files.readString(dir.resolve("two"))).isEqualTo("hi\n");
        long fresh = awaitOneDaemon();
        assertThat(fresh).isNotEqualTo(old);
    }

    @Test
    void aSocketInADirectoryOpenToOthersIsNeverUsed() throws Exception {
        Files.createDirectories(warmDir);
        Files.setPosixFilePermissions(warmDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertForeignSocketUnused();
    }

    @Test
    void aSocketInADirectoryOfAnotherUserIsNeverUsed() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a directory away");
        Files.createDirectories(warmDir);
        Files.setPosixFilePermissions(warmDir, PosixFilePermissions.fromString("rwx------"));
        UserPrincipal nobody = warmDir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(warmDir, nobody);
        assertForeignSocketUnused();
    }

    /** A listener where the daemon's socket would be, in a directory not ours alone: the client never connects. */
    private void assertForeignSocketUnused() throws Exception {
        try (ServerSocketChannel foreign = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            foreign.bind(UnixDomainSocketAddress.of(socket()));
            foreign.configureBlocking(false);
            Tool t = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("one"));
            assertCopied(t);
            assertThat(t.err()).doesNotContain("warm agent (pid");
            assertThat(Files.readString(dir.resolve("one"))).isEqualTo("hi\n");
            assertThat(foreign.accept()).as("a connection to the foreign socket").isNull();
            assertThat(daemons()).as("no daemon in a directory that is not private").isEmpty();
        }
    }

    @Test
    void aPeerOfAnotherUserGetsNoGreeting() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can connect as another user");
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        awaitOneDaemon();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(socket(), LinkOption.NOFOLLOW_LINKS));
        // Open the way for the test (the private directory alone would keep nobody out), so
        // that what refuses nobody is the daemon's own check of its peer.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(warmDir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(socket(), PosixFilePermissions.fromString("rwxrwxrwx"));
        try {
            assertThat(connect(List.of())).as("this user is greeted").startsWith("rdflux-warm 1 ");
            assertThat(connect(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")))
                    .as("another user is not").isEqualTo("no greeting");
        } finally {
            Files.setPosixFilePermissions(warmDir, PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void ctrlCOnRdpipeEndsTheSessionsRemoteCommandAndLeavesTheDaemon() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Path pid = dir.resolve("pid");
        Tool t = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()),
                ProcessBuilder.Redirect.to(dir.resolve("out").toFile()), "-v",
                "h1:echo $$ > " + ShellWords.quote(pid.toString()) + "; exec sleep 600");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pid) && !Files.readString(pid).isBlank());
        long sleeper = Long.parseLong(Files.readString(pid).strip());
        assertThat(ProcessHandle.of(sleeper)).isPresent();
        t.signal("INT");
        assertThat(t.exitCode(LIMIT)).isNotZero();
        assertThat(t.err()).contains("h1: warm agent (pid " + daemon + ")");
        await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(sleeper).map(p -> !p.isAlive()).orElse(true));
        assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive)).as("the daemon serves on").contains(true);
    }

    @Test
    void rdpipeThroughTheDaemonGetsItsSessionsEnvironmentAndExitStatus() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Path out = dir.resolve("out");
        Tool t = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()), ProcessBuilder.Redirect.to(out.toFile()),
                "-v", "h1:cat; printenv SSH_CONNECTION; exit 7");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(7);
        assertThat(served(t).get(0)).isEqualTo(daemon);
        List<String> lines = Files.readAllLines(out);
        assertThat(lines.get(0)).isEqualTo("hi");
        String session = lines.get(1);
        String daemons = environ(daemon).get("SSH_CONNECTION");
        assertThat(session).startsWith("127.0.0.1 ").isNotEqualTo(daemons);
    }

    @Test
    void anRdpipeChainOfThreeSessionsIsServedByOneDaemonAtOnce() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Path out = dir.resolve("out");
        Tool t = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()), ProcessBuilder.Redirect.to(out.toFile()),
                "-v", "h1:cat", "h1:tr a-z A-Z", "h1:cat");
        assertCopied(t);
        assertThat(Files.readString(out)).isEqualTo("HI\n");
        Matcher m = SERVED.matcher(t.err());
        List<Long> sessions = new ArrayList<>();
        while (m.find()) {
            assertThat(Long.parseLong(m.group(1))).isEqualTo(daemon);
            sessions.add(Long.parseLong(m.group(2)));
        }
        assertThat(sessions).as(t.err()).containsExactlyInAnyOrder(1L, 2L, 3L);
    }

    @Test
    void twoSessionsOfOneDaemonWithDifferentPathsEachRunTheirOwnProgram() throws Exception {
        // The daemon starts with neither directory on its PATH; each later session puts its own first.
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        for (String which : List.of("a", "b")) {
            Path bin = Files.createDirectories(dir.resolve("bin-" + which));
            Path prog = Files.writeString(bin.resolve("rdflux-test-prog"), "#!/bin/sh\necho \"prog " + which + "\"\n");
            Files.setPosixFilePermissions(prog, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        for (String which : List.of("a", "b", "a")) {
            Path out = dir.resolve("out-" + which);
            Tool t = toolWith("PATH=" + ShellWords.quote(dir.resolve("bin-" + which).toString()) + ":$PATH ", "rdpipe", "5m",
                    ProcessBuilder.Redirect.from(file.toFile()), ProcessBuilder.Redirect.to(out.toFile()), "-v",
                    "h1:rdflux-test-prog");
            assertCopied(t);
            assertThat(served(t).get(0)).isEqualTo(daemon);
            assertThat(Files.readString(out)).isEqualTo("prog " + which + "\n");
        }
    }

    @Test
    void aLaterSessionSeesItsOwnEnvironmentNotTheOneOfTheSessionThatStartedTheDaemon() throws Exception {
        // The first call's agent (a JVM) has the variable, and leaves the daemon.
        assertCopied(toolWith("RDFLUX_TEST_FIRST=first ", "rdcp", "5m", ProcessBuilder.Redirect.PIPE,
                ProcessBuilder.Redirect.PIPE, file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Path out = dir.resolve("out");
        Tool t = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()), ProcessBuilder.Redirect.to(out.toFile()),
                "-v", "h1:cat; echo \"first=${RDFLUX_TEST_FIRST-unset}\"");
        assertCopied(t);
        assertThat(served(t).get(0)).isEqualTo(daemon);
        assertThat(Files.readAllLines(out)).containsExactly("hi", "first=unset");
    }

    @Test
    void aLaterSessionsTildeIsItsOwnHomeNotTheDaemons() throws Exception {
        Path daemonHome = Files.createDirectory(dir.resolve("daemon-home"));
        Path sessionHome = Files.createDirectory(dir.resolve("session-home"));
        // The first call's agent starts the daemon with its HOME, which the daemon keeps.
        assertCopied(toolWith("HOME=" + ShellWords.quote(daemonHome.toString()) + " ", "rdcp", "5m",
                ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, file.toString(), "h1:~/one"));
        long daemon = awaitOneDaemon();
        assertThat(daemonHome.resolve("one")).hasContent("hi");
        Tool t = toolWith("HOME=" + ShellWords.quote(sessionHome.toString()) + " ", "rdcp", "5m",
                ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, "-v", file.toString(), "h1:~/two");
        assertCopied(t);
        assertThat(served(t).get(0)).isEqualTo(daemon);
        assertThat(sessionHome.resolve("two")).as("~ is the session's HOME").hasContent("hi");
        assertThat(daemonHome.resolve("two")).doesNotExist();
    }

    @Test
    void aWarmSessionsVerboseAndDebugLinesReachItsStderr() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        // The agent receives: under -v it names the connection it accepted, as a JVM agent does.
        Tool verbose = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("two"));
        assertCopied(verbose);
        assertThat(served(verbose).get(0)).isEqualTo(daemon);
        assertThat(verbose.err()).contains("h1: rdflux agent: accepted ");
        Tool quiet = rdcp("5m", file.toString(), "h1:" + dir.resolve("three"));
        assertCopied(quiet);
        assertThat(quiet.err()).doesNotContain("rdflux agent: accepted");
        Tool debug = rdcp("5m", "--debug", file.toString(), "h1:" + dir.resolve("four"));
        assertCopied(debug);
        assertThat(debug.err()).contains("h1: rdflux agent: accepted ");
    }

    /**
     * The daemon finds out whether RDMA is usable once, in its warm-up (the transports' answers
     * are kept for the JVM's life), so no session pays the probe, and says so once, in the first verbose session that chooses a transport, not
     * in every session as each JVM agent does; the caller's own line is its JVM's, one a call.
     */
    @Test
    void aDaemonProbesRdmaBeforeItsFirstSessionAndSaysItIsNotUsableOnce() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        // Its warm-up probed (the probe's class is loaded), with no session served yet.
        CompiledMethods.awaitLoaded(daemon, Duration.ofSeconds(90), "io.rdmaflux.transport.rdma.RdmaNative");
        Tool second = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("two"));
        assertCopied(second);
        Tool third = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("three"));
        assertCopied(third);
        assertThat(served(third)).containsExactly(daemon, 2L);
        String agents = "h1: rdflux agent: RDMA not usable";
        assertThat(third.err()).as("the daemon's second session").doesNotContain(agents);
        assertThat(count(second.err(), agents)).as("the daemon's first session").isLessThanOrEqualTo(1);
    }

    private static int count(String text, String what) {
        return text.split(Pattern.quote(what), -1).length - 1;
    }

    @Test
    void aSessionsDebugLinesReachNoOtherSessionsStderr() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        awaitOneDaemon();
        // A (h1, --debug) waits in its command until told, so B's whole call runs while A listens.
        Path started = dir.resolve("started");
        Path go = dir.resolve("go");
        Tool a = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()),
                ProcessBuilder.Redirect.to(dir.resolve("out").toFile()), "-v", "--debug",
                "h1:touch " + ShellWords.quote(started.toString()) + "; while [ ! -e " + ShellWords.quote(go.toString())
                        + " ]; do sleep 0.1; done; cat");
        try {
            await().atMost(LIMIT).until(() -> Files.exists(started));
            Tool b = rdcp("5m", "-v", "--debug", file.toString(), "h2:" + dir.resolve("two"));
            assertCopied(b);
            assertThat(b.err()).contains("h2: warm agent (pid ");
        } finally {
            Files.createFile(go);
        }
        assertCopied(a);
        assertThat(a.err()).contains("h1: warm agent (pid ").doesNotContain("127.0.0.2");
    }

    @Test
    void aSessionBeyondTheDaemonsRoomIsDeclinedAndRunsAJvm() throws Exception {
        // A daemon with room for one session at once (its direct memory sized for one agent).
        assertCopied(toolWith(WarmStart.SESSIONS_ENV + "=1 ", "rdcp", "5m", ProcessBuilder.Redirect.PIPE,
                ProcessBuilder.Redirect.PIPE, file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Path pid = dir.resolve("pid");
        Tool holder = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()),
                ProcessBuilder.Redirect.to(dir.resolve("out").toFile()), "-v",
                "h1:echo $$ > " + ShellWords.quote(pid.toString()) + "; exec sleep 600");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pid) && !Files.readString(pid).isBlank());
        Tool second = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("two"));
        assertCopied(second);
        assertThat(second.err()).as("declined: a JVM agent of its own").doesNotContain("warm agent (pid");
        assertThat(Files.readString(dir.resolve("two"))).isEqualTo("hi\n");
        holder.signal("INT");
        assertThat(holder.exitCode(LIMIT)).isNotZero();
        assertThat(holder.err()).contains("h1: warm agent (pid " + daemon + "): session 1");
        // Room again once the first session has ended.
        Tool third = rdcp("5m", "-v", file.toString(), "h1:" + dir.resolve("three"));
        assertCopied(third);
        assertThat(served(third)).containsExactly(daemon, 2L);
    }

    @Test
    void theBenchmarksCleanUpEndsTheDaemonOfItsDirectory() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        long daemon = awaitOneDaemon();
        Process p = new ProcessBuilder("bash", "-c", ". \"$1\" && end_warm_agents \"$2\"", "bash",
                Tool.HOME.resolve("scripts/bench-cleanup").toString(), warmDir.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(said).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> daemons().stream().noneMatch(d -> d.pid() == daemon));
    }

    /** Connects to the daemon as the command prefix says (setpriv for another user); what it said first. */
    private String connect(List<String> as) throws Exception {
        List<String> cmd = new ArrayList<>(as);
        cmd.addAll(List.of("perl", "-MIO::Socket::UNIX", "-MIO::Select", "-e",
                "my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or do { print 'cannot connect'; exit };"
                + " my $g = ''; IO::Select->new($s)->can_read(20) and sysread($s, $g, 100);"
                + " print length $g ? $g : 'no greeting'", socket().toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return said;
    }

    private static Map<String, String> environ(long pid) throws IOException {
        Map<String, String> env = new HashMap<>();
        for (String v : Files.readString(Path.of("/proc", Long.toString(pid), "environ")).split("\0")) {
            int eq = v.indexOf('=');
            if (eq > 0) {
                env.put(v.substring(0, eq), v.substring(eq + 1));
            }
        }
        return env;
    }

    /** The daemon's pid and session number, from the -v line the call printed. */
    private static List<Long> served(Tool t) {
        Matcher m = SERVED.matcher(t.err());
        assertThat(m.find()).as("served by a warm agent: " + t.err()).isTrue();
        return List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }

    private long awaitOneDaemon() {
        await().atMost(Duration.ofSeconds(60)).until(() -> daemons().size() == 1
                && Files.exists(socket(), LinkOption.NOFOLLOW_LINKS));
        return daemons().get(0).pid();
    }

    /** The daemons of this test's directory. */
    private List<ProcessHandle> daemons() {
        return WarmDaemons.of(warmDir);
    }

    private Path socket() throws IOException {
        return WarmPlace.of(Tool.HOME.resolve("cli/target/rdma-flux.jar"), warmDir.toString(), Map.of()).socket();
    }

    private Tool rdcp(String idle, String... args) {
        return tool("rdcp", idle, ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, args);
    }

    private Tool tool(String name, String idle, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out, String... args) {
        return toolWith("", name, idle, in, out, args);
    }

    /** A tool whose remote agent runs with {@code assignments} ("NAME=VALUE ...") in its environment (--rdflux-path). */
    private Tool toolWith(String assignments, String name, String idle, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out,
                          String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", assignments + ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        Map<String, String> env = new HashMap<>();
        env.put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
        env.put(WarmAgents.ENV, idle);
        env.put(WarmAgents.DIR_ENV, warmDir.toString());
        return Tool.start(dir, name, in, out, env, all.toArray(String[]::new));
    }

    private static void assertCopied(Tool t) {
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
    }

    /** The lock files in the test's warm directory. */
    private List<Path> lockFiles() throws IOException {
        if (!Files.isDirectory(warmDir)) {
            return List.of();
        }
        try (var files = Files.list(warmDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".lock")).toList();
        }
    }
}
