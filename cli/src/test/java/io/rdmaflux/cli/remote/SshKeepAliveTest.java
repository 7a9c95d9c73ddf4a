package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ssh's keep-alive on the coordinators' ssh command lines, unless the user's words or ssh
 * config files already choose it for the host (real config files in a temporary directory).
 */
class SshKeepAliveTest {

    private static final List<String> KEEP_ALIVE = List.of("-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4");

    @TempDir
    Path dir;

    @Test
    void addedWhenNothingSetsIt() throws Exception {
        Path user = Files.writeString(dir.resolve("config"), "# ServerAliveInterval 99 (a comment)\nHost *\n  Compression yes\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", user, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh", "-p", "22"), "h1", dir.resolve("none"), dir.resolve("none")))
                .isEqualTo(KEEP_ALIVE);
    }

    @Test
    void theUsersOwnOptionWins() {
        for (List<String> words : List.of(List.of("ssh", "-o", "ServerAliveInterval=5"), List.of("ssh", "-oServerAliveCountMax=1"),
                List.of("ssh", "-o", "serveraliveinterval 30"))) {
            assertThat(SshKeepAlive.options(words, "h1", dir.resolve("none"), dir.resolve("none"))).as(words.toString()).isEmpty();
        }
    }

    @Test
    void aConfigFileThatSetsItForTheHostWins() throws Exception {
        Path user = Files.writeString(dir.resolve("config"), "Host slow\n    ServerAliveInterval 60\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "slow", user, dir.resolve("none"))).isEmpty();
        Path system = Files.writeString(dir.resolve("ssh_config"), "ServerAliveCountMax 10\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", dir.resolve("none"), system)).isEmpty();
        // -F replaces both files: the one it names is read instead.
        Path other = Files.writeString(dir.resolve("other"), "Host *\n");
        assertThat(SshKeepAlive.options(List.of("ssh", "-F", other.toString()), "slow", user, system)).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh", "-F" + user), "slow", dir.resolve("none"), dir.resolve("none"))).isEmpty();
    }

    @Test
    void aHostBlockForAnotherHostDoesNotTurnItOff() throws Exception {
        Path user = Files.writeString(dir.resolve("config"), """
                Host slow *.far !h1
                    ServerAliveInterval=60
                Host h?
                    Compression yes
                """);
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", user, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh"), "h2", user, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh"), "slow", user, dir.resolve("none"))).isEmpty();
        assertThat(SshKeepAlive.options(List.of("ssh"), "Box.FAR", user, dir.resolve("none"))).isEmpty();
        // A Match block depends on what only ssh knows: what it sets counts as set.
        Path matched = Files.writeString(dir.resolve("matched"), "Match exec \"true\"\n  ServerAliveInterval 5\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", matched, dir.resolve("none"))).isEmpty();
    }

    @Test
    void anIncludeIsFollowedWhereItStands() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("config.d"));
        Files.writeString(conf.resolve("10-alive.conf"), "Host h1\n  ServerAliveInterval 30\n");
        Files.writeString(conf.resolve("20-other.conf"), "Host h2\n  Compression yes\n");
        Path user = Files.writeString(dir.resolve("config"), "Include " + conf + "/*.conf\nHost *\n  Compression no\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", user, dir.resolve("none"))).isEmpty();
        assertThat(SshKeepAlive.options(List.of("ssh"), "h2", user, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        // Inside a Host block for another host, the Include does not apply to this one.
        Files.writeString(conf.resolve("30-any.conf"), "ServerAliveCountMax 9\n");
        Path scoped = Files.writeString(dir.resolve("scoped"), "Host far\n  Include " + conf.resolve("30-any.conf") + "\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h2", scoped, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh"), "far", scoped, dir.resolve("none"))).isEmpty();
        // A relative Include of the system's file is under its directory.
        Path system = Files.writeString(dir.resolve("ssh_config"), "Include config.d/10-alive.conf\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), "h1", dir.resolve("none"), system)).isEmpty();
    }
}
