package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link SshSharing} asks of ssh and of the environment, and where {@link RemoteShell} adds it. */
class SshSharingTest {

    private static final RemoteHost H = RemoteHost.parse("me@node1");

    @TempDir
    Path dir;

    @Test
    void theEnvironmentPicksTheDirectoryAndTheIdleTime() {
        SshSharing runtime = SshSharing.fromEnvironment(Map.of("XDG_RUNTIME_DIR", "/run/user/7", "HOME", "/home/me"));
        assertThat(runtime.dir()).isEqualTo(Path.of("/run/user/7/rdflux/ssh"));
        assertThat(runtime.persist()).isEqualTo(SshSharing.DEFAULT_PERSIST);
        assertThat(SshSharing.fromEnvironment(Map.of("HOME", "/home/me")).dir())
                .isEqualTo(Path.of("/home/me/.cache/rdflux/ssh"));
        assertThat(SshSharing.fromEnvironment(Map.of("HOME", "/h", SshSharing.ENV, "90s")).persist())
                .isEqualTo(Duration.ofSeconds(90));
        for (String off : List.of("no", "NO", "off", "0", "false")) {
            assertThat(SshSharing.fromEnvironment(Map.of("HOME", "/h", SshSharing.ENV, off)).enabled()).as(off).isFalse();
        }
        assertThat(SshSharing.fromEnvironment(Map.of()).enabled()).as("no home, no runtime directory").isFalse();
        assertThat(SshSharing.fromEnvironment(Map.of("HOME", "relative")).enabled()).isFalse();
        assertThatThrownBy(() -> SshSharing.fromEnvironment(Map.of("HOME", "/h", SshSharing.ENV, "sometimes")))
                .hasMessage(SshSharing.ENV + " must be 'no' or how long an idle shared ssh connection stays "
                        + "(5m, 90s, at least 1 s), not 'sometimes'");
    }

    @Test
    void sshGetsTheControlOptionsAfterItsOwnAndTheDirectoryIsMadePrivate() {
        Path shared = dir.resolve("rdflux/ssh");
        RemoteShell shell = RemoteShell.create().rsh("ssh -p 2222 -o ServerAliveInterval=5")
                .sharing(SshSharing.in(shared, Duration.ofMinutes(2)));
        assertThat(shell.command(H, "rdflux agent")).containsExactly("ssh", "-p", "2222", "-o", "ServerAliveInterval=5",
                "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-T", "-x", "-a", "-o", "ControlMaster=auto", "-o",
                "ControlPath=" + shared + "/%C", "-o", "ControlPersist=120", "me@node1", "rdflux agent");
        assertThat(shared).isDirectory();
        assertThat(dir.resolve("rdflux")).isDirectory();
        for (Path p : List.of(shared, dir.resolve("rdflux"))) {
            assertThat(perms(p)).as(p.toString()).isEqualTo("rwx------");
        }
        // The setters keep it.
        assertThat(shell.rdfluxPath("x").startTimeout(Duration.ofSeconds(5)).command(H, "x")).contains("ControlMaster=auto");
    }

    @Test
    void notWhenTheCommandIsNotSshOrSaysHowToShareOrItIsOff() {
        SshSharing on = SshSharing.in(dir.resolve("s"), Duration.ofMinutes(1));
        assertThat(RemoteShell.create().rsh("rsh -l x").sharing(on).command(H, "y")).containsExactly("rsh", "-l", "x",
                "me@node1", "y");
        for (String own : List.of("ssh -o ControlMaster=no", "ssh -o controlpath=none", "ssh -oControlPersist=no",
                "ssh -S /tmp/m", "ssh -M")) {
            assertThat(RemoteShell.create().rsh(own).sharing(on).command(H, "y")).as(own)
                    .noneMatch(w -> w.startsWith("ControlMaster=auto"));
        }
        assertThat(RemoteShell.create().command(H, "y")).as("create() does not share").noneMatch(w -> w.contains("Control"));
        assertThat(RemoteShell.create().sharing(on).sharing(SshSharing.off()).command(H, "y"))
                .noneMatch(w -> w.contains("Control"));
        assertThat(RemoteShell.fromEnvironment(Map.of("XDG_RUNTIME_DIR", dir.toString())).command(H, "y"))
                .contains("ControlPath=" + dir.resolve("rdflux/ssh") + "/%C");
    }

    @Test
    void aDirectoryThatIsNotPrivateIsRefusedWithTheReason() throws IOException {
        Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(refusal(open)).isEqualTo("not sharing the ssh connection: " + open
                + " is open to others (mode rwxr-x---; chmod 700 it)");

        Path target = Files.createDirectories(dir.resolve("target"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        assertThat(refusal(link)).isEqualTo("not sharing the ssh connection: " + link + " is not a directory");

        Path file = Files.writeString(dir.resolve("file"), "");
        assertThat(refusal(file)).isEqualTo("not sharing the ssh connection: " + file + " is not a directory");

        assertThat(refusal(Path.of("/tmp/" + "x".repeat(60)))).endsWith("is too long a path for ssh's control sockets");
        assertThat(refusal(dir.resolve("a b")))
                .endsWith(" holds characters ssh would read in a ControlPath");
        assertThat(dir.resolve("a b")).doesNotExist();
    }

    /** What the shell said when it did not share through {@code shared}; fails when it did. */
    private static String refusal(Path shared) {
        List<String> said = new ArrayList<>();
        List<String> argv = RemoteShell.create().sharing(SshSharing.in(shared, Duration.ofMinutes(1)))
                .log((host, line) -> said.add(line)).command(H, "y");
        assertThat(argv).noneMatch(w -> w.contains("Control"));
        assertThat(said).hasSize(1);
        return said.get(0);
    }

    private static String perms(Path p) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
