package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.cli.remote.SshSharing;
import io.rdmaflux.cli.remote.WarmAgents;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class RemoteOptionsTest {

    @Command(name = "coordinator")
    static final class Coordinator {
        @Mixin
        RemoteOptions remote = new RemoteOptions();
    }

    private static RemoteShell parse(Map<String, String> env, String... args) {
        Coordinator c = new Coordinator();
        new CommandLine(c).parseArgs(args);
        return c.remote.shell(env);
    }

    private static final RemoteHost H = RemoteHost.parse("h");

    @Test
    void dashEThenTheEnvironmentThenSsh() {
        assertThat(parse(Map.of()).command(H, "x").get(0)).isEqualTo("ssh");
        assertThat(parse(Map.of(RemoteShell.RSH_ENV, "ssh -p 2222")).command(H, "x")).startsWith("ssh", "-p", "2222");
        assertThat(parse(Map.of(RemoteShell.RSH_ENV, "ssh -p 2222"), "-e", "ssh -F 'a b'").command(H, "x"))
                .startsWith("ssh", "-F", "a b", "-o");
        assertThat(parse(Map.of(), "--rsh=rsh").command(H, "x")).isEqualTo(List.of("rsh", "h", "x"));
        assertThat(parse(Map.of(), "--rdflux-path", "/opt/rd/bin/rdflux").agentCommand())
                .isEqualTo("/opt/rd/bin/rdflux agent");
    }

    @Test
    void noSshShareWinsOverTheEnvironmentEvenABadValue(@TempDir Path home) {
        Map<String, String> env = Map.of("XDG_RUNTIME_DIR", home.toString());
        assertThat(parse(env).command(H, "x")).contains("ControlMaster=auto");
        assertThat(parse(env, "--no-ssh-share").command(H, "x")).noneMatch(w -> w.startsWith("Control"));
        Map<String, String> bad = Map.of("XDG_RUNTIME_DIR", home.toString(), SshSharing.ENV, "often");
        assertThat(parse(bad, "--no-ssh-share").command(H, "x")).noneMatch(w -> w.startsWith("Control"));
        assertThatThrownBy(() -> parse(bad)).isInstanceOf(UsageException.class)
                .hasMessage(SshSharing.ENV + " must be 'no' or how long an idle shared ssh connection stays "
                        + "(5m, 90s, at least 1 s), not 'often'");
    }

    @Test
    void noWarmAgentWinsOverTheEnvironmentEvenABadValue() {
        assertThat(parse(Map.of()).warm().enabled()).isTrue();
        assertThat(parse(Map.of(), "--no-warm-agent").warm().enabled()).isFalse();
        assertThat(parse(Map.of(WarmAgents.ENV, "no")).warm().enabled()).isFalse();
        assertThat(parse(Map.of(WarmAgents.ENV, "90s")).warm().idle()).isEqualTo(java.time.Duration.ofSeconds(90));
        Map<String, String> bad = Map.of(WarmAgents.ENV, "often");
        assertThat(parse(bad, "--no-warm-agent").warm().enabled()).isFalse();
        assertThatThrownBy(() -> parse(bad)).isInstanceOf(UsageException.class)
                .hasMessage(WarmAgents.ENV + " must be 'no' or how long an idle warm agent stays "
                        + "(5m, 90s, at least 1 s), not 'often'");
    }

    @Test
    void aBadCommandIsAUsageErrorThatSaysWhereItCameFrom() {
        assertThatThrownBy(() -> parse(Map.of(), "-e", "ssh -F 'x")).isInstanceOf(UsageException.class)
                .hasMessageContaining("unterminated single quote");
        assertThatThrownBy(() -> parse(Map.of(RemoteShell.RSH_ENV, "ssh \"x"))).isInstanceOf(UsageException.class)
                .hasMessageEndingWith("(in RDFLUX_RSH)");
        assertThatThrownBy(() -> parse(Map.of(), "--rdflux-path", " ")).isInstanceOf(UsageException.class);
    }

    @Test
    void installRemoteTakesNoRdfluxPathAndNeedsARelease() {
        assertThatThrownBy(() -> parse(Map.of(), "--install-remote", "--rdflux-path", "/opt/rd/bin/rdflux"))
                .isInstanceOf(UsageException.class).hasMessageContaining("exclude each other");
        // These tests run from the build's class directories, as a checkout's tools do: no release to copy.
        assertThatThrownBy(() -> parse(Map.of(), "--install-remote")).isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--install-remote copies this host's release, but this rdflux runs from a "
                        + "build checkout").hasMessageContaining("dist/target/rdflux-VERSION-linux-x86_64.tar.gz");
    }
}
