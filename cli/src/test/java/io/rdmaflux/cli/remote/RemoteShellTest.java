package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.cli.remote.RemoteException.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemoteShellTest {

    private static final RemoteHost H = RemoteHost.parse("me@node1");

    @Test
    void sshGetsBatchModeAndATimeoutAfterTheUsersOwnWords() {
        assertThat(RemoteShell.create().command(H, "rdflux agent")).startsWith("ssh", "-o", "BatchMode=yes",
                "-o", "ConnectTimeout=10", "-T", "-x", "-a").endsWith("me@node1", "rdflux agent");
        RemoteShell s = RemoteShell.create().rsh("/usr/bin/ssh -o ConnectTimeout=3 -F 'my cfg'")
                .connectTimeout(Duration.ofSeconds(20));
        // -F names a file that is not there: no ServerAlive in it, so the keep-alive is added.
        assertThat(s.command(H, "x")).containsExactly("/usr/bin/ssh", "-o", "ConnectTimeout=3", "-F", "my cfg",
                "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-T", "-x", "-a",
                "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4", "me@node1", "x");
    }

    @Test
    void anotherRemoteShellGetsNoSshOptions() {
        assertThat(RemoteShell.create().rsh("rsh -l x").command(H, "y")).containsExactly("rsh", "-l", "x", "me@node1", "y");
    }

    @Test
    void theEnvironmentReplacesSshAndRdfluxPathIsShellText() {
        RemoteShell s = RemoteShell.fromEnvironment(Map.of(RemoteShell.RSH_ENV, "ssh -p 2222"));
        assertThat(s.command(H, "x")).startsWith("ssh", "-p", "2222");
        assertThat(RemoteShell.fromEnvironment(Map.of(RemoteShell.RSH_ENV, "  ")).command(H, "x")).startsWith("ssh", "-o");
        assertThat(RemoteShell.create().rdfluxPath("sudo /opt/rd/bin/rdflux").agentCommand())
                .isEqualTo("sudo /opt/rd/bin/rdflux agent");
        assertThatThrownBy(() -> RemoteShell.create().rsh(" ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> RemoteShell.create().rdfluxPath("")).hasMessageContaining("empty");
    }

    @Test
    void aWarmAgentIsAskedForOnTheAgentsCommandLineOnlyWhenOn() {
        assertThat(RemoteShell.create().agentCommand("ab12")).isEqualTo("rdflux agent --hello ab12");
        assertThat(RemoteShell.fromEnvironment(Map.of()).agentCommand("ab12"))
                .isEqualTo("rdflux agent --warm 300 --hello ab12");
        assertThat(RemoteShell.fromEnvironment(Map.of(WarmAgents.ENV, "no")).agentCommand("ab12"))
                .isEqualTo("rdflux agent --hello ab12");
        assertThat(RemoteShell.fromEnvironment(Map.of(WarmAgents.ENV, "2m", WarmAgents.DIR_ENV, "/run/a b"))
                .rdfluxPath("/opt/rd/bin/rdflux").agentCommand("ab12"))
                .isEqualTo("/opt/rd/bin/rdflux agent --warm 120 --warm-dir '/run/a b' --hello ab12");
        assertThatThrownBy(() -> RemoteShell.fromEnvironment(Map.of(WarmAgents.DIR_ENV, "run")))
                .hasMessageContaining(WarmAgents.DIR_ENV + " must be an absolute path");
    }

    @Test
    void theStartTimeoutComesFromTheEnvironmentAndIsValidated() {
        assertThat(RemoteShell.create().startTimeout()).isEqualTo(RemoteShell.DEFAULT_START_TIMEOUT);
        assertThat(RemoteShell.fromEnvironment(Map.of(RemoteShell.START_TIMEOUT_ENV, " 300 ")).startTimeout())
                .isEqualTo(Duration.ofSeconds(300));
        assertThat(RemoteShell.create().startTimeout(Duration.ofSeconds(90)).rsh("ssh -p 2").startTimeout())
                .as("kept by the other setters").isEqualTo(Duration.ofSeconds(90));
        assertThat(RemoteShell.fromEnvironment(Map.of(RemoteShell.START_TIMEOUT_ENV, "2m")).startTimeout())
                .as("a duration, as in pipeline files").isEqualTo(Duration.ofMinutes(2));
        for (String bad : List.of("abc", "-5", "1.5", "10x", "9999999999")) {
            assertThatThrownBy(() -> RemoteShell.fromEnvironment(Map.of(RemoteShell.START_TIMEOUT_ENV, bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(RemoteShell.START_TIMEOUT_ENV + " must be a duration (40s, 2m, or a number of seconds), not '"
                            + bad + "'");
        }
        assertThatThrownBy(() -> RemoteShell.fromEnvironment(Map.of(RemoteShell.START_TIMEOUT_ENV, "0")))
                .hasMessage("the start timeout must be at least 1 s");
    }

    @Test
    void classifiesWhatSshAndTheRemoteShellSay() {
        RemoteShell ssh = RemoteShell.create();
        assertThat(RemoteAgent.classify(H, 255, List.of("ssh: connect to host node1 port 22: Connection refused"), ssh))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(Kind.UNREACHABLE);
                    assertThat(e.getMessage()).isEqualTo("me@node1: ssh connection refused (ssh: connect to host node1 "
                            + "port 22: Connection refused); check that sshd runs there and listens on the port ssh uses");
                });
        assertThat(RemoteAgent.classify(H, 255, List.of("ssh: connect to host x port 22: Connection timed out"), ssh)
                .getMessage()).contains("timed out after 10 s");
        assertThat(RemoteAgent.classify(H, 255, List.of("ssh: Could not resolve hostname node1: Name or service not known"),
                ssh).getMessage()).contains("unknown host name");
        assertThat(RemoteAgent.classify(H, 255, List.of("me@node1: Permission denied (publickey)."), ssh).kind())
                .isEqualTo(Kind.AUTHENTICATION);
        assertThat(RemoteAgent.classify(H, 255, List.of("Host key verification failed."), ssh).kind())
                .isEqualTo(Kind.HOST_KEY);
        assertThat(RemoteAgent.classify(H, 255, List.of("kex_exchange_identification: read: Connection reset"), ssh)
                .getMessage()).contains("ssh failed").contains("ssh me@node1 true");
        assertThat(RemoteAgent.classify(H, 127, List.of("bash: rdflux: command not found"), ssh).getMessage())
                .isEqualTo("me@node1: 'rdflux' not found there (bash: rdflux: command not found); run with "
                        + "--install-remote to copy this host's rdma-flux there, or install it there");
        assertThat(RemoteAgent.classify(H, 126, List.of(), ssh).kind()).isEqualTo(Kind.TOOL_MISSING);
        assertThat(RemoteAgent.classify(H, 69, List.of("rdflux: no Java found; install a JDK 17+"), ssh).getMessage())
                .contains("failed to start (exit 69)").contains("no Java found");
        // Exit 255 from something that is not ssh is the remote tool's own status.
        assertThat(RemoteAgent.classify(H, 255, List.of(), RemoteShell.create().rsh("rsh")).kind())
                .isEqualTo(Kind.TOOL_FAILED);
    }
}
