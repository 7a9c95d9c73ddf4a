package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.RemoteRdflux;
import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.cli.remote.SshSharing;
import io.rdmaflux.cli.remote.WarmAgents;
import io.rdmaflux.cli.warm.WarmPlace;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm agent reached through the shared ssh connection (WarmRoute) against the loopback
 * sshd, with sharing and the warm agent on as by default: the first rdcp leaves a daemon, the
 * second logs in and is served by it and keeps where it listens, the next ones reach it through
 * a forward of the master with no login, copy the same and are served by the same daemon; a
 * daemon gone, a server that refuses the forward (h3) and a kept socket that is no warm agent's
 * each leave the call to its login, which copies as before. Each test ends its masters and
 * daemons, which "nothing left running" checks.
 */
class WarmRouteE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final Pattern SERVED = Pattern.compile("warm agent \\(pid (\\d+)\\): session (\\d+)");
    private static final String DIRECT = "a session of the warm agent there, through the shared ssh connection";
    private static final String LOGIN = "starting the agent on %s: ssh ";

    @TempDir
    Path dir;

    private Path tool;
    private Path file;
    private Path warmDir;
    private Path shared;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void setUp() throws IOException {
        tool = RemoteRdflux.in(dir);
        file = Files.writeString(dir.resolve("tiny"), "hi\n");
        warmDir = dir.resolve("agent");
        shared = dir.resolve("rdflux/ssh");
    }

    /** Ends the daemons and the masters this test left (they would stay their idle time). */
    @AfterEach
    void tearDown() throws Exception {
        WarmDaemons.end(warmDir);
        for (Path socket : sockets()) {
            if (!socket.getFileName().toString().startsWith("w-")) {
                new ProcessBuilder("ssh", "-F", sshd.sshConfig().toString(), "-o", "ControlPath=" + socket, "-O", "exit",
                        "h1").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            }
        }
    }

    @Test
    void fromTheThirdCallOnTheDaemonIsReachedWithoutALogin() throws Exception {
        assertCopied(rdcp("h1", "one"));
        long daemon = awaitOneDaemon();

        Tool second = rdcp("h1", "two");
        assertCopied(second);
        assertThat(second.err()).contains(String.format(LOGIN, "h1"))
                .contains("the warm agent on h1 listens at " + socket() + "; the next calls reach it");
        assertThat(served(second)).containsExactly(daemon, 1L);
        List<Path> routes = routes();
        assertThat(routes).as("one route kept").hasSize(1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(routes.get(0), LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
        assertThat(Files.readString(routes.get(0))).contains("socket " + socket() + "\n");

        for (int i = 3; i <= 4; i++) {
            Tool t = rdcp("h1", "copy-" + i);
            assertCopied(t);
            assertThat(t.err()).contains(DIRECT).doesNotContain(String.format(LOGIN, "h1"));
            assertThat(served(t)).containsExactly(daemon, (long) i - 1);
            assertThat(Files.readString(dir.resolve("copy-" + i))).isEqualTo("hi\n");
        }
        assertThat(forwardSockets()).as("the master's end of the forward, in the private directory").hasSize(1);

        // The benchmarks' clean-up (under set -e, as they run it) ends the master and passes the
        // forward's socket by: ssh -O exit on it failed and ended their clean-up early.
        Process p = new ProcessBuilder("bash", "-c", "set -euo pipefail; . \"$1\"; end_ssh_masters \"$2\"; echo ended",
                "bash", Tool.HOME.resolve("scripts/bench-cleanup").toString(), dir.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(said).isZero();
        assertThat(said).contains("ended");
        await().atMost(Duration.ofSeconds(30)).until(() -> sockets().stream()
                .noneMatch(s -> !s.getFileName().toString().startsWith("w-")));
    }

    @Test
    void aDaemonGoneLeavesTheCallToItsLoginWhichStartsAnother() throws Exception {
        assertCopied(rdcp("h1", "one"));
        awaitOneDaemon();
        assertCopied(rdcp("h1", "two"));
        Tool direct = rdcp("h1", "three");
        assertCopied(direct);
        assertThat(direct.err()).contains(DIRECT);

        WarmDaemons.end(warmDir);
        Tool after = rdcp("h1", "four");
        assertCopied(after);
        assertThat(after.err()).contains("no warm agent greeted through the forward to h1")
                .contains(String.format(LOGIN, "h1"));
        assertThat(Files.readString(dir.resolve("four"))).isEqualTo("hi\n");
        // The login's agent left a new daemon at the same socket: the kept route serves again.
        long daemon = awaitOneDaemon();
        Tool next = rdcp("h1", "five");
        assertCopied(next);
        assertThat(next.err()).contains(DIRECT);
        assertThat(served(next).get(0)).isEqualTo(daemon);
    }

    @Test
    void aServerThatRefusesTheForwardStillCopiesThroughTheLogin() throws Exception {
        assertCopied(rdcp("h3", "one"));
        awaitOneDaemon();
        assertCopied(rdcp("h3", "two"));
        for (String name : List.of("three", "four")) {
            Tool t = rdcp("h3", name);
            assertCopied(t);
            assertThat(t.err()).contains("no warm agent greeted through the forward to h3")
                    .contains(String.format(LOGIN, "h3")).doesNotContain(DIRECT);
            assertThat(Files.readString(dir.resolve(name))).isEqualTo("hi\n");
        }
    }

    @Test
    void aKeptSocketThatIsNoWarmAgentsIsForgotten() throws Exception {
        assertCopied(rdcp("h1", "one"));
        awaitOneDaemon();
        assertCopied(rdcp("h1", "two"));
        // The route now names a socket where something else answers (what a reused path could hold).
        Path route = routes().get(0);
        Path other = dir.resolve("other.sock");
        Files.writeString(route, Files.readString(route).replace("socket " + socket(), "socket " + other));
        try (ServerSocketChannel impostor = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            impostor.bind(UnixDomainSocketAddress.of(other));
            Thread answer = new Thread(() -> {
                while (true) {
                    try (SocketChannel c = impostor.accept()) {
                        c.write(ByteBuffer.wrap("SSH-2.0-something else\n".getBytes(StandardCharsets.US_ASCII)));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            answer.setDaemon(true);
            answer.start();
            // The master forwarded the old socket: this call's forward names the other one.
            for (Path s : forwardSockets()) {
                Files.delete(s);
            }
            Tool t = rdcp("h1", "three");
            assertCopied(t);
            assertThat(t.err()).contains("is no warm agent; forgetting it").contains(String.format(LOGIN, "h1"));
            assertThat(Files.readString(dir.resolve("three"))).isEqualTo("hi\n");
        }
        // The login's hello kept the daemon's socket again.
        assertThat(Files.readString(routes().get(0))).contains("socket " + socket() + "\n");
    }

    private Tool rdcp(String host, String name) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString()),
                "-v", "--debug", file.toString(), host + ":" + dir.resolve(name)));
        Map<String, String> env = new HashMap<>();
        env.put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
        env.put("XDG_RUNTIME_DIR", dir.toString());
        env.put(SshSharing.ENV, "5m");
        env.put(WarmAgents.ENV, "5m");
        env.put(WarmAgents.DIR_ENV, warmDir.toString());
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, env,
                all.toArray(String[]::new));
    }

    private static void assertCopied(Tool t) {
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
    }

    private static List<Long> served(Tool t) {
        Matcher m = SERVED.matcher(t.err());
        assertThat(m.find()).as("served by a warm agent: " + t.err()).isTrue();
        return List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }

    private long awaitOneDaemon() {
        await().atMost(Duration.ofSeconds(60)).until(() -> WarmDaemons.of(warmDir).size() == 1
                && Files.exists(socket(), LinkOption.NOFOLLOW_LINKS));
        return WarmDaemons.of(warmDir).get(0).pid();
    }

    private Path socket() throws IOException {
        return WarmPlace.of(Tool.HOME.resolve("cli/target/rdma-flux.jar"), warmDir.toString(), Map.of()).socket();
    }

    /** The routes kept in the private directory (w-KEY files). */
    private List<Path> routes() throws IOException {
        return list(p -> p.getFileName().toString().matches("w-[0-9a-f]{16}") && Files.isRegularFile(p));
    }

    /** The forwards' sockets in the private directory (w-KEY.sock). */
    private List<Path> forwardSockets() throws IOException {
        return list(p -> p.getFileName().toString().matches("w-[0-9a-f]{16}\\.sock"));
    }

    /** The sockets in the private directory: the masters' and the forwards'. */
    private List<Path> sockets() throws IOException {
        return list(p -> {
            try {
                return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
            } catch (IOException gone) {
                return false;
            }
        });
    }

    private List<Path> list(java.util.function.Predicate<Path> which) throws IOException {
        if (!Files.isDirectory(shared)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(shared)) {
            return s.filter(which).sorted().toList();
        }
    }
}
