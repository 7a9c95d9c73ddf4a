package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call served by a standby whose client has a terminal: the ssh processes it starts ask
 * through bin/rdflux-askpass on that terminal; a cold run's ssh environment is untouched.
 */
class SshPromptsTest {

    @TempDir
    Path dir;

    @AfterEach
    void coldAgain() {
        SshPrompts.reset();
    }

    private Path script(Path p) throws Exception {
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    @Test
    void askpassIsFoundBesideAReleasesOrACheckoutsJar() throws Exception {
        Path release = script(dir.resolve("release/bin/rdflux-askpass"));
        assertThat(SshPrompts.askpass(dir.resolve("release/lib/rdma-flux.jar"))).isEqualTo(release);
        Path checkout = script(dir.resolve("checkout/bin/rdflux-askpass"));
        assertThat(SshPrompts.askpass(dir.resolve("checkout/cli/target/rdma-flux.jar"))).isEqualTo(checkout);
        assertThat(SshPrompts.askpass(dir.resolve("elsewhere/lib/rdma-flux.jar"))).isNull();
        assertThat(SshPrompts.askpass(null)).isNull();
    }

    @Test
    void sshStartedByAServedCallGetsTheAskpassEnvironment() throws Exception {
        assertThat(env()).noneMatch(l -> l.startsWith("SSH_ASKPASS") || l.startsWith("RDFLUX_ASKPASS_TTY"));
        Path askpass = script(dir.resolve("release/bin/rdflux-askpass"));
        SshPrompts.throughTerminal(askpass, "/dev/pts/9");
        assertThat(env()).contains("SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force", "RDFLUX_ASKPASS_TTY=/dev/pts/9");
    }

    /** The environment a process started as ssh is started gets, as env(1) prints it. */
    private static List<String> env() throws Exception {
        Process p = SshPrompts.apply(new ProcessBuilder("env")).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out.lines().toList();
    }
}
