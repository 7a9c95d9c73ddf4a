package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How rdcp reads SRC... DST: hosts, names, trailing slashes (no copy runs here). */
class RdcpCommandTest {

    private static RdcpCommand.Plan plan(String... args) {
        RdcpCommand c = new RdcpCommand();
        new CommandLine(c).parseArgs(args);
        return c.plan();
    }

    @Test
    void aTrailingSlashOrADotCopiesContentsElseTheNamedEntry() {
        assertThat(RdcpCommand.nameOf("models/llama")).isEqualTo("llama");
        assertThat(RdcpCommand.nameOf("-dash name")).isEqualTo("-dash name");
        assertThat(RdcpCommand.nameOf("models/llama/")).isNull();
        assertThat(RdcpCommand.nameOf(".")).isNull();
        assertThat(RdcpCommand.nameOf("a/..")).isNull();
        assertThat(RdcpCommand.nameOf("~")).isNull();
    }

    @Test
    void sourcesAndDestinationAreSplitIntoHostsAndPaths() {
        RdcpCommand.Plan p = plan("-r", "user@h2:data/set", "h3:");
        assertThat(p.sourceHost()).isEqualTo(new RemoteHost("user", "h2"));
        assertThat(p.destHost()).isEqualTo(new RemoteHost(null, "h3"));
        assertThat(p.destPath()).as("host: alone is the home directory").isEqualTo(".");
        assertThat(p.name()).isEqualTo("set");
        assertThat(p.source()).containsEntry("path", "data/set").containsEntry("recursive", true);

        RdcpCommand.Plan several = plan("a", "./b:c", "dst");
        assertThat(several.sourceHost()).as("./b:c is a local path").isNull();
        assertThat(several.source()).containsEntry("paths", List.of("a", "./b:c")).doesNotContainKey("path");
        assertThat(several.name()).isNull();
        assertThat(several.source()).isInstanceOf(Map.class).containsEntry("recursive", false);
    }

    @Test
    void sourcesOnTwoHostsOrWithoutNamesAreRefused() {
        assertThatThrownBy(() -> plan("h1:a", "h2:b", "dst")).isInstanceOf(UsageException.class)
                .hasMessageContaining("all SRCs must be on one host");
        assertThatThrownBy(() -> plan("-r", "a/", "b", "dst")).isInstanceOf(UsageException.class)
                .hasMessageContaining("'a/' has none");
    }

    @Test
    void theStartTimeoutOptionWinsOverTheEnvironmentAndIsValidated() {
        RdcpCommand c = new RdcpCommand();
        new CommandLine(c).parseArgs("--start-timeout", "120", "a", "h1:b");
        assertThat(c.remote.shell(Map.of(RemoteShell.START_TIMEOUT_ENV, "30")).startTimeout())
                .isEqualTo(Duration.ofSeconds(120));
        assertThat(c.remote.shell(Map.of(RemoteShell.START_TIMEOUT_ENV, "soon")).startTimeout())
                .isEqualTo(Duration.ofSeconds(120));
        RdcpCommand zero = new RdcpCommand();
        new CommandLine(zero).parseArgs("--start-timeout", "0", "a", "h1:b");
        assertThatThrownBy(() -> zero.remote.shell(Map.of())).isInstanceOf(UsageException.class)
                .hasMessage("--start-timeout must be at least 1s");
        RdcpCommand fromEnv = new RdcpCommand();
        new CommandLine(fromEnv).parseArgs("a", "h1:b");
        assertThatThrownBy(() -> fromEnv.remote.shell(Map.of(RemoteShell.START_TIMEOUT_ENV, "soon",
                RemoteShell.RSH_ENV, "ssh"))).isInstanceOf(UsageException.class)
                .hasMessage(RemoteShell.START_TIMEOUT_ENV + " must be a duration (40s, 2m, or a number of seconds), not 'soon'");
    }
}
