package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.AgentFailures.Ending;
import io.rdmaflux.cli.remote.RemoteException.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way {@link AgentFailures} words a remote agent's failure: one row per case, each with
 * the kind (which picks the exit code) and the whole one-line message.
 */
class AgentFailuresTest {

    private static final RemoteHost H = RemoteHost.parse("me@node1");
    private static final RemoteShell SSH = RemoteShell.create();
    private static final RemoteShell RSH = RemoteShell.create().rsh("rsh");

    /** A case: what {@link AgentFailures} was given, and the failure it must give (none: kind null). */
    record Row(String name, Supplier<Optional<RemoteException>> failure, Kind kind, String message) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Row row(String name, Supplier<RemoteException> failure, Kind kind, String message) {
        return new Row(name, () -> Optional.of(failure.get()), kind, message);
    }

    private static Row ended(String name, Ending ending, RemoteShell shell, Kind kind, String message) {
        return new Row(name, () -> AgentFailures.ended(H, shell, ending), kind, message);
    }

    private static Row classify(String name, int exit, List<String> stderr, RemoteShell shell, Kind kind, String message) {
        return row(name, () -> AgentFailures.classify(H, exit, stderr, shell), kind, message);
    }

    /** Before the hello: nothing reported, the process ended with {@code exit} after printing {@code early}. */
    private static Ending noHello(int exit, List<String> early) {
        return new Ending(null, null, false, false, exit, early, early.isEmpty() ? null : early.get(early.size() - 1));
    }

    /** After the hello: the agent reported {@code outcome} (or nothing) and ssh ended with {@code exit}. */
    private static Ending afterHello(AgentMessage.Done outcome, int exit, String lastStderr) {
        return new Ending(null, outcome, false, true, exit, List.of(), lastStderr);
    }

    static Stream<Row> rows() {
        // The keep-alive options assume no ServerAlive in this user's ~/.ssh/config (SshKeepAlive).
        String sshBatch = "ssh -o BatchMode=yes -o ConnectTimeout=10 -T -x -a -o ServerAliveInterval=15 -o ServerAliveCountMax=4"
                + " me@node1 'rdflux agent'";
        return Stream.of(
            // ssh's own failures (exit 255), by what it printed; the last line is quoted.
            classify("unknown name", 255, List.of("ssh: Could not resolve hostname node1: Name or service not known"), SSH,
                    Kind.UNREACHABLE, "me@node1: unknown host name (ssh: Could not resolve hostname node1: Name or "
                            + "service not known); check the name, or the Host entries of your ssh configuration"),
            classify("name or service", 255, List.of("getaddrinfo: Name or service not known"), SSH,
                    Kind.UNREACHABLE, "me@node1: unknown host name (getaddrinfo: Name or service not known); check the "
                            + "name, or the Host entries of your ssh configuration"),
            classify("refused", 255, List.of("ssh: connect to host node1 port 22: Connection refused"), SSH,
                    Kind.UNREACHABLE, "me@node1: ssh connection refused (ssh: connect to host node1 port 22: Connection "
                            + "refused); check that sshd runs there and listens on the port ssh uses"),
            classify("refused, then another line", 255, List.of("ssh: connect to host node1 port 22: Connection refused",
                    "lost connection"), SSH, Kind.UNREACHABLE, "me@node1: ssh connection refused (lost connection); "
                            + "check that sshd runs there and listens on the port ssh uses"),
            classify("timed out", 255, List.of("ssh: connect to host node1 port 22: Connection timed out"), SSH,
                    Kind.UNREACHABLE, "me@node1: ssh connection timed out after 10 s (ssh: connect to host node1 port "
                            + "22: Connection timed out); check that the host is up and reachable"),
            classify("timed out, own connect timeout", 255, List.of("Connection timed out during banner exchange"),
                    RemoteShell.create().connectTimeout(Duration.ofSeconds(3)), Kind.UNREACHABLE,
                    "me@node1: ssh connection timed out after 3 s (Connection timed out during banner exchange); check "
                            + "that the host is up and reachable"),
            classify("no route", 255, List.of("ssh: connect to host node1 port 22: No route to host"), SSH,
                    Kind.UNREACHABLE, "me@node1: host unreachable (ssh: connect to host node1 port 22: No route to host); "
                            + "check the network path to it"),
            classify("network unreachable", 255, List.of("ssh: connect to host node1 port 22: Network is unreachable"),
                    SSH, Kind.UNREACHABLE, "me@node1: host unreachable (ssh: connect to host node1 port 22: Network is "
                            + "unreachable); check the network path to it"),
            classify("host key unknown", 255, List.of("Host key verification failed."), SSH, Kind.HOST_KEY,
                    "me@node1: ssh does not trust the host key (Host key verification failed.); connect once with "
                            + "'ssh me@node1' to check and accept it"),
            classify("host key changed", 255, List.of("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
                    "Offending key in /root/.ssh/known_hosts:3"), SSH, Kind.HOST_KEY,
                    "me@node1: ssh does not trust the host key (Offending key in /root/.ssh/known_hosts:3); connect "
                            + "once with 'ssh me@node1' to check and accept it"),
            classify("permission denied", 255, List.of("me@node1: Permission denied (publickey)."), SSH,
                    Kind.AUTHENTICATION, "me@node1: ssh could not log in without a password (me@node1: Permission "
                            + "denied (publickey).); rdflux runs ssh in batch mode: set up key-based login (ssh-copy-id "
                            + "me@node1) or load your key into ssh-agent"),
            classify("too many keys", 255, List.of("Received disconnect from 10.0.0.1 port 22:2: Too many "
                    + "authentication failures"), SSH, Kind.AUTHENTICATION, "me@node1: ssh could not log in without a "
                            + "password (Received disconnect from 10.0.0.1 port 22:2: Too many authentication failures); "
                            + "rdflux runs ssh in batch mode: set up key-based login (ssh-copy-id me@node1) or load your "
                            + "key into ssh-agent"),
            classify("ssh, other reason", 255, List.of("kex_exchange_identification: read: Connection reset"), SSH,
                    Kind.UNREACHABLE, "me@node1: ssh failed (kex_exchange_identification: read: Connection reset); "
                            + "try 'ssh me@node1 true' to see why"),
            classify("ssh, silent", 255, List.of(), SSH, Kind.UNREACHABLE,
                    "me@node1: ssh failed; try 'ssh me@node1 true' to see why"),
            // The remote shell's and the tool's failures to start.
            classify("command not found", 127, List.of("bash: rdflux: command not found"), SSH, Kind.TOOL_MISSING,
                    "me@node1: 'rdflux' not found there (bash: rdflux: command not found); run with --install-remote "
                            + "to copy this host's rdma-flux there, or install it there"),
            classify("own path not found", 127, List.of(), SSH.rdfluxPath("/opt/rd/bin/rdflux"), Kind.TOOL_MISSING,
                    "me@node1: '/opt/rd/bin/rdflux' not found there; check the path given with --rdflux-path, or "
                            + "leave it out and run with --install-remote to copy this host's rdma-flux there"),
            classify("cannot run", 126, List.of("bash: /opt/rdflux: Permission denied"), SSH, Kind.TOOL_MISSING,
                    "me@node1: 'rdflux' cannot be run there (bash: /opt/rdflux: Permission denied); check the path "
                            + "given with --rdflux-path and its permissions"),
            classify("older agent without --hello", 64, List.of("rdflux: unknown option '--hello'"), SSH,
                    Kind.TOOL_FAILED, "me@node1: 'rdflux agent' there does not take --hello, which this version gives "
                            + "it: install the same version on both hosts"),
            // An rdflux older than AgentSizing, given a job's sizes: named with its version when asked.
            ended("older agent without the sizing words", new Ending(null, null, false, false, 64,
                    List.of("rdflux: unknown option '--frame-size', '4194304', '--slots', '16'",
                            "rdflux: see 'rdflux agent --help'"), "rdflux: see 'rdflux agent --help'",
                    "rdma-flux 0.0.9 (protocol 1, Java 17)"), SSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' there (rdma-flux 0.0.9 (protocol 1, Java 17)) does not take --frame-size "
                            + "and --slots, which this version gives it for sizes other than the defaults: run with "
                            + "--install-remote to put this version there, or leave --frame-size and --slots at their "
                            + "defaults (1M, 16)"),
            classify("older agent without the sizing words, picocli's own words", 64,
                    List.of("Unknown option: '--slots'"), SSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' there (an older version) does not take --frame-size and --slots, which "
                            + "this version gives it for sizes other than the defaults: run with --install-remote to put "
                            + "this version there, or leave --frame-size and --slots at their defaults (1M, 16)"),
            classify("older agent without --hello nor the sizing words: --hello decides", 64,
                    List.of("rdflux: unknown option '--frame-size', '4194304', '--hello', 'ab'"), SSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' there does not take --hello, which this version gives "
                            + "it: install the same version on both hosts"),
            classify("usage error, another", 64, List.of("rdflux: unknown option '--x'"), SSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' failed to start (exit 64) (rdflux: unknown option '--x'); check the "
                            + "rdma-flux installation there"),
            classify("no java", 69, List.of("rdflux: no Java found; install a JDK 17+"), SSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' failed to start (exit 69) (rdflux: no Java found; install a JDK 17+); "
                            + "check the rdma-flux installation there"),
            // 255 from a remote shell that is not ssh is the remote tool's own status.
            classify("rsh 255", 255, List.of("Connection refused"), RSH, Kind.TOOL_FAILED,
                    "me@node1: 'rdflux agent' failed to start (exit 255) (Connection refused); check the rdma-flux "
                            + "installation there"),
            // The end of an agent, by what is known then.
            ended("job done", afterHello(new AgentMessage.Done(0, 10, null), 0, null), SSH, null, null),
            ended("job done, ssh 255 after it", afterHello(new AgentMessage.Done(0, 10, null), 255, "x"), SSH, null, null),
            ended("job failed, no message", afterHello(new AgentMessage.Done(3, 0, null), 3, null), SSH,
                    Kind.JOB_FAILED, "me@node1: failed with status 3"),
            ended("job failed, message sanitized", afterHello(new AgentMessage.Done(74, 0, "disk\tfull\u001b[31m!"), 74,
                    null), SSH, Kind.JOB_FAILED, "me@node1: disk full?!"),
            ended("protocol error beats a report", new Ending("it is broken", new AgentMessage.Done(0, 0, null), false,
                    true, 0, List.of(), null), SSH, Kind.TOOL_FAILED, "me@node1: it is broken"),
            ended("start timed out", new Ending(null, null, true, false, 255, List.of("Welcome", "to node1"), "to node1"),
                    SSH, Kind.TOOL_FAILED, "me@node1: rdflux did not start within 40 s (to node1); check that "
                            + sshBatch + " prints a hello line, or give it longer with --start-timeout"),
            ended("no hello: classified", noHello(127, List.of("sh: 1: rdflux: not found")), SSH, Kind.TOOL_MISSING,
                    "me@node1: 'rdflux' not found there (sh: 1: rdflux: not found); run with --install-remote to "
                            + "copy this host's rdma-flux there, or install it there"),
            ended("lost: ssh 255", afterHello(null, 255, "Connection reset by peer"), SSH, Kind.LOST,
                    "me@node1: the ssh connection was lost"),
            ended("lost: rsh 255", afterHello(null, 255, null), RSH, Kind.LOST,
                    "me@node1: the agent ended without reporting (exit 255)"),
            ended("lost: with stderr", afterHello(null, 1, "Killed"), SSH, Kind.LOST,
                    "me@node1: the agent ended without reporting (exit 1): Killed"),
            ended("lost: interrupted", afterHello(null, -1, null), SSH, Kind.LOST,
                    "me@node1: the agent ended without reporting (exit -1)"),
            // Failures before or besides the end.
            row("start timed out, silent", () -> AgentFailures.startTimedOut(H,
                    SSH.startTimeout(Duration.ofSeconds(5)), List.of()), Kind.TOOL_FAILED,
                    "me@node1: rdflux did not start within 5 s; check that " + sshBatch
                            + " prints a hello line, or give it longer with --start-timeout"),
            row("ssh missing here", () -> AgentFailures.cannotRun(H, SSH, "ssh",
                    "Cannot run program \"ssh\": error=2, No such file or directory"), Kind.UNREACHABLE,
                    "me@node1: cannot run 'ssh': Cannot run program \"ssh\": error=2, No such file or directory "
                            + "(install OpenSSH's ssh client, or give -e)"),
            row("rsh missing here", () -> AgentFailures.cannotRun(H, RSH, "rsh", "error=2\nNo such file"),
                    Kind.UNREACHABLE, "me@node1: cannot run 'rsh': error=2 No such file (check -e or RDFLUX_RSH)"),
            row("no listening port", () -> AgentFailures.noListeningPort(H, Duration.ofSeconds(30)), Kind.TOOL_FAILED,
                    "me@node1: the agent did not report a listening port within 30 s"),
            row("no receiver", () -> AgentFailures.noReceiver(H), Kind.TOOL_FAILED, "me@node1: the job had no receiver"),
            ended("other protocol", new Ending(AgentFailures.otherProtocol(new AgentMessage.Hello(AgentMessage.PROTOCOL + 1,
                    "9.9\u0007", null, null, "n")), null, false, false, 0, List.of(), null), SSH, Kind.TOOL_FAILED,
                    "me@node1: rdflux there speaks agent protocol " + (AgentMessage.PROTOCOL + 1) + ", this one "
                            + AgentMessage.PROTOCOL + " (9.9?): install the same version on both hosts"),
            ended("other version", new Ending(AgentFailures.otherVersion(hello("rdma-flux 0.2.0 (protocol 1, Java 21)"),
                    new ReleaseVersion("0.1.0", 1)), null, false, false, 0, List.of(), null), SSH, Kind.TOOL_FAILED,
                    "me@node1: rdflux there is 0.2.0 (protocol 1), this one 0.1.0 (protocol 1): run with "
                            + "--install-remote to run this version there, or install the same version on both hosts"),
            ended("other channel protocol", new Ending(AgentFailures.otherVersion(hello("rdma-flux 0.1.0 (protocol 2, x)"),
                    new ReleaseVersion("0.1.0", 1)), null, false, false, 0, List.of(), null), SSH, Kind.TOOL_FAILED,
                    "me@node1: rdflux there is 0.1.0 (protocol 2), this one 0.1.0 (protocol 1): run with "
                            + "--install-remote to run this version there, or install the same version on both hosts"),
            ended("malformed", new Ending(AgentFailures.malformed("bad\nvalue \u001b[2J"), null, false, true, 0, List.of(),
                    null), SSH, Kind.TOOL_FAILED, "me@node1: the agent sent a malformed message (bad value ?)"),
            ended("too long", new Ending(AgentFailures.malformed(AgentFailures.tooLong()), null, false, true, 0, List.of(),
                    null), SSH, Kind.TOOL_FAILED, "me@node1: the agent sent a malformed message (a line longer than "
                            + AgentMessage.MAX_LINE + " bytes)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachFailureHasItsKindAndItsLine(Row row) {
        Optional<RemoteException> failure = row.failure().get();
        if (row.kind() == null) {
            assertThat(failure).as(row.name()).isEmpty();
            return;
        }
        assertThat(failure).as(row.name()).isPresent();
        assertThat(failure.get().kind()).as(row.name()).isEqualTo(row.kind());
        assertThat(failure.get().getMessage()).as(row.name()).isEqualTo(row.message());
        assertThat(failure.get().host()).isEqualTo(H);
    }

    private static AgentMessage.Hello hello(String version) {
        return new AgentMessage.Hello(AgentMessage.PROTOCOL, version, null, null, "n");
    }

    @Test
    void versionsThatDifferOnlyInWhatDoesNotMatterPass() {
        ReleaseVersion local = new ReleaseVersion("0.1.0-SNAPSHOT", 1);
        assertThat(AgentFailures.otherVersion(hello("rdma-flux 0.1.0-SNAPSHOT (protocol 1, Java 17.0.9)"), local)).isNull();
        assertThat(AgentFailures.otherVersion(hello("rdma-flux 0.1.7 (protocol 1, Java 21)"), local)).isNull();
        // A version text of another form says nothing the protocols' own checks do not.
        assertThat(AgentFailures.otherVersion(hello("9.9"), local)).isNull();
        assertThat(AgentFailures.otherVersion(hello("rdma-flux 1.1.0 (protocol 1, Java 17)"), local))
                .startsWith("rdflux there is 1.1.0 (protocol 1), this one 0.1.0-SNAPSHOT (protocol 1)");
        // What the agent says is sanitized before it is shown.
        assertThat(AgentFailures.otherVersion(hello("rdma-flux 0.9\u001b[2J (protocol 1)"), local)).doesNotContain("\u001b");
    }

    @Test
    void aFailedJobCarriesTheAgentsStatusAndWhatDidNotArrive() {
        RemoteException e = AgentFailures.ended(H, SSH, afterHello(new AgentMessage.Done(75, 9, "2 files failed",
                List.of("a/b: gone", "c\u001b[1m: bad\nline"), true), 75, null)).orElseThrow();
        assertThat(e.kind()).isEqualTo(Kind.JOB_FAILED);
        assertThat(e.remoteStatus()).isEqualTo(75);
        assertThat(e.failures()).containsExactly("a/b: gone", "c?: bad line");
        assertThat(e.reportedByPeer()).isTrue();
        RemoteException own = AgentFailures.ended(H, SSH, afterHello(new AgentMessage.Done(3, 0, "x"), 3, null))
                .orElseThrow();
        assertThat(own.reportedByPeer()).isFalse();
        assertThat(own.failures()).isEmpty();
    }
}
