package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.cli.remote.SshSharing;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
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
 * rdcp's ssh connection sharing against the loopback sshd: the first call leaves a master whose
 * socket is in the private directory, the next call logs in through it (sshd sees one login for
 * both), the master goes when idle, a stale socket does not stop a call, two calls racing to be
 * master both work (two rdcp, or an rdpipe chain with three sessions to one host), and a directory that is not this user's alone, or --no-ssh-share, means no
 * sharing. Each test points {@code XDG_RUNTIME_DIR} at its own temporary directory, and ends
 * every master it made, which "nothing left running" checks.
 */
class SshSharingE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final Pattern LOGIN = Pattern.compile("Accepted publickey for ");

    @TempDir
    Path dir;

    private Path tool;
    private Path file;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void setUp() throws IOException {
        tool = RemoteRdflux.in(dir);
        file = Files.writeString(dir.resolve("tiny"), "hi\n");
    }

    /** Ends the masters this test left (they would stay their idle time), through their own sockets. */
    @AfterEach
    void endMasters() throws Exception {
        for (Path socket : sockets()) {
            new ProcessBuilder("ssh", "-F", sshd.sshConfig().toString(), "-o", "ControlPath=" + socket, "-O", "exit", "h1")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        }
    }

    @Test
    void theFirstCallLeavesAMasterInThePrivateDirectoryAndTheNextLogsInThroughIt() throws Exception {
        int before = logins();
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        Path shared = dir.resolve("rdflux/ssh");
        PosixFileAttributes a = Files.readAttributes(shared, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        assertThat(PosixFilePermissions.toString(a.permissions())).isEqualTo("rwx------");
        assertThat(sockets()).as("the master's socket").hasSize(1);
        assertThat(logins()).isEqualTo(before + 1);

        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("two")));
        assertThat(logins()).as("the second call logged in through the master").isEqualTo(before + 1);
        assertThat(Files.readString(dir.resolve("two"))).isEqualTo("hi\n");
        assertThat(sockets()).hasSize(1);
    }

    @Test
    void anIdleMasterEndsAndTakesItsSocketWithIt() throws Exception {
        // The remote tool waits for a go file, so the master is seen while its session is open.
        Path go = dir.resolve("go");
        Path gated = dir.resolve("gated rdflux");
        Files.writeString(gated, "#!/bin/sh\nwhile [ ! -e " + ShellWords.quote(go.toString()) + " ]; do sleep 0.1; done\n"
                + "exec " + ShellWords.quote(tool.toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(gated, PosixFilePermissions.fromString("rwxr-xr-x"));
        tool = gated;
        Tool t = rdcp("1s", file.toString(), "h1:" + dir.resolve("one"));
        await().atMost(Duration.ofSeconds(60)).until(() -> sockets().size() == 1);
        Files.createFile(go);
        assertCopied(t);
        await().atMost(Duration.ofSeconds(30)).until(() -> sockets().isEmpty());
        assertThat(sshd.awaitNoSessions(Duration.ofSeconds(20))).as("the master's session on sshd").isEmpty();
    }

    @Test
    void noSshShareAndTheVariableTurnItOff() throws Exception {
        int before = logins();
        assertCopied(rdcp("5m", "--no-ssh-share", file.toString(), "h1:" + dir.resolve("one")));
        assertCopied(rdcp("no", file.toString(), "h1:" + dir.resolve("two")));
        assertThat(logins()).isEqualTo(before + 2);
        assertThat(sockets()).isEmpty();
    }

    @Test
    void aStaleSocketIsReplacedAndDoesNotStopTheCall() throws Exception {
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("one")));
        Path socket = sockets().get(0);
        endMasters();
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(socket, LinkOption.NOFOLLOW_LINKS));
        // A socket file no process listens on, as a master killed with SIGKILL leaves.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        int before = logins();
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("two")));
        assertThat(logins()).isEqualTo(before + 1);
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("three")));
        assertThat(logins()).as("the new master serves the next call").isEqualTo(before + 1);
    }

    @Test
    void twoCallsRacingToBeMasterBothCopy() throws Exception {
        Tool a = rdcp("5m", file.toString(), "h1:" + dir.resolve("a"));
        Tool b = rdcp("5m", file.toString(), "h1:" + dir.resolve("b"));
        assertCopied(a);
        assertCopied(b);
        assertThat(sockets()).as("one master").hasSize(1);
        int before = logins();
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("c")));
        assertThat(logins()).isEqualTo(before);
    }

    @Test
    void anRdpipeChainStartsThreeSessionsToOneHostAtOnceAndLeavesOneMaster() throws Exception {
        Path out = dir.resolve("out");
        Tool t = tool("rdpipe", "5m", ProcessBuilder.Redirect.from(file.toFile()), ProcessBuilder.Redirect.to(out.toFile()),
                "h1:cat", "h1:tr a-z A-Z", "h1:cat");
        assertCopied(t);
        assertThat(Files.readString(out)).isEqualTo("HI\n");
        assertThat(sockets()).as("one master").hasSize(1);
        int before = logins();
        assertCopied(rdcp("5m", file.toString(), "h1:" + dir.resolve("after")));
        assertThat(logins()).as("rdcp used rdpipe's master").isEqualTo(before);
    }

    @Test
    void aDirectoryOpenToOthersIsNotUsed() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("rdflux/ssh"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        int before = logins();
        Tool t = rdcp("5m", file.toString(), "h1:" + dir.resolve("one"));
        assertCopied(t);
        assertThat(t.err()).contains("h1: not sharing the ssh connection: " + shared + " is open to others (mode rwxrwxrwx");
        assertThat(sockets()).isEmpty();
        assertThat(logins()).isEqualTo(before + 1);
    }

    @Test
    void aDirectoryOfAnotherUserIsNotUsed() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a directory away");
        Path shared = Files.createDirectories(dir.resolve("rdflux/ssh"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwx------"));
        UserPrincipal nobody = shared.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(shared, nobody);
        Tool t = rdcp("5m", file.toString(), "h1:" + dir.resolve("one"));
        assertCopied(t);
        assertThat(t.err()).contains("not sharing the ssh connection: " + shared + " belongs to nobody, not root");
        assertThat(sockets()).isEmpty();
    }

    private Tool rdcp(String share, String... args) {
        return tool("rdcp", share, ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, args);
    }

    private Tool tool(String name, String share, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out, String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        Map<String, String> env = new HashMap<>();
        env.put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
        env.put("XDG_RUNTIME_DIR", dir.toString());
        env.put(SshSharing.ENV, share);
        return Tool.start(dir, name, in, out, env, all.toArray(String[]::new));
    }

    /** The sockets in the private directory. */
    private List<Path> sockets() throws IOException {
        Path shared = dir.resolve("rdflux/ssh");
        if (!Files.isDirectory(shared)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(shared)) {
            return s.filter(p -> {
                try {
                    return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
                } catch (IOException gone) {
                    return false;
                }
            }).toList();
        }
    }

    /** How many logins sshd has accepted so far. */
    private static int logins() {
        Matcher m = LOGIN.matcher(sshd.log());
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static void assertCopied(Tool t) {
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
    }
}
