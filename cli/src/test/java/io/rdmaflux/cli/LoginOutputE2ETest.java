package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * rdcp over the loopback sshd whose logins print before the agent starts, as a user's startup
 * files do: text without a trailing newline ("Welcome" just before the agent's hello), and a
 * line that looks like a hello. The agent's own hello is found anyway, and only it.
 */
class LoginOutputE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @AfterEach
    void plainLoginsAgain() throws IOException {
        Files.deleteIfExists(sshd.startupFile());
    }

    /** Makes every login run {@code script} first, and checks that it does (else this test could not fail). */
    private void loginPrints(String script, String expected) throws Exception {
        Files.writeString(sshd.startupFile(), script + "\nunset BASH_ENV\n");
        Process p = new ProcessBuilder("ssh", "-F", sshd.sshConfig().toString(), "h1", "true")
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("ssh h1 true").isTrue();
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(expected);
    }

    private void copiesOver() throws IOException {
        Path src = Files2.random(dir.resolve("src.bin"), 200_000, 21);
        Path dst = Files.createDirectories(dir.resolve("dst")).resolve("copy.bin");
        Tool t = Tool.start(dir, "rdcp", "-e", sshd.rsh(), "--rdflux-path",
                ShellWords.quote(Tool.HOME.resolve("bin/rdflux").toString()), src.toString(), "h1:" + dst);
        assertThat(t.exitCode(LIMIT)).as("rdcp: %s", t.err()).isZero();
        assertThat(Files2.sha256(dst)).isEqualTo(Files2.sha256(src));
    }

    @Test
    void aLoginThatPrintsWithoutANewlineBeforeTheHello() throws Exception {
        loginPrints("printf Welcome", "Welcome");
        copiesOver();
    }

    @Test
    void aStartupFileLineThatLooksLikeAHelloIsNotTakenForIt() throws Exception {
        String fake = "{\"type\":\"hello\",\"protocol\":7,\"version\":\"a startup file\"}";
        loginPrints("printf '%s\\n' '" + fake + "'", fake + "\n");
        copiesOver();
    }
}
