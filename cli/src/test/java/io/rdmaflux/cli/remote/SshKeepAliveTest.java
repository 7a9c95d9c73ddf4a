package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ssh's keep-alive on the coordinators' ssh command lines, unless the user's words or ssh
 * config files already choose it (real config files in a temporary directory).
 */
class SshKeepAliveTest {

    private static final List<String> KEEP_ALIVE = List.of("-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4");

    @TempDir
    Path dir;

    @Test
    void addedWhenNothingSetsIt() throws Exception {
        Path user = Files.writeString(dir.resolve("config"), "# ServerAliveInterval 99 (a comment)\nHost *\n  Compression yes\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), user, dir.resolve("none"))).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh", "-p", "22"), dir.resolve("none"), dir.resolve("none")))
                .isEqualTo(KEEP_ALIVE);
    }

    @Test
    void theUsersOwnOptionWins() {
        for (List<String> words : List.of(List.of("ssh", "-o", "ServerAliveInterval=5"), List.of("ssh", "-oServerAliveCountMax=1"),
                List.of("ssh", "-o", "serveraliveinterval 30"))) {
            assertThat(SshKeepAlive.options(words, dir.resolve("none"), dir.resolve("none"))).as(words.toString()).isEmpty();
        }
    }

    @Test
    void aConfigFileThatNamesItWins() throws Exception {
        Path user = Files.writeString(dir.resolve("config"), "Host slow\n    ServerAliveInterval 60\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), user, dir.resolve("none"))).isEmpty();
        Path system = Files.writeString(dir.resolve("ssh_config"), "ServerAliveCountMax 10\n");
        assertThat(SshKeepAlive.options(List.of("ssh"), dir.resolve("none"), system)).isEmpty();
        // -F replaces both files: the one it names is read instead.
        Path other = Files.writeString(dir.resolve("other"), "Host *\n");
        assertThat(SshKeepAlive.options(List.of("ssh", "-F", other.toString()), user, system)).isEqualTo(KEEP_ALIVE);
        assertThat(SshKeepAlive.options(List.of("ssh", "-F" + user), dir.resolve("none"), dir.resolve("none"))).isEmpty();
    }
}
