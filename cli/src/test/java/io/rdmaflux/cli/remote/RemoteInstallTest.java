package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where --install-remote finds the release it copies, on real directories laid out as tar
 * unpacks a release, as install.sh copies it, and as a build checkout holds the jar; and the
 * versions that name the cache and decide whether an agent can serve this coordinator. The copy
 * itself runs against a real sshd in the dist module's RemoteInstallE2ETest.
 */
class RemoteInstallTest {

    @TempDir
    Path dir;

    private Path release(Path root) throws IOException {
        Files.createDirectories(root.resolve("lib"));
        Files.writeString(root.resolve("lib/rdma-flux.jar"), "jar");
        for (String exe : new String[] {"bin/rdflux-launch", "runtime/bin/java"}) {
            Files.createDirectories(root.resolve(exe).getParent());
            Files.writeString(root.resolve(exe), "#!/bin/sh\n");
            Files.setPosixFilePermissions(root.resolve(exe), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return root;
    }

    @Test
    void aReleaseIsFoundFromItsJarThroughLinks() throws IOException {
        Path root = release(dir.resolve("opt/rdflux-0.1.0"));
        assertThat(RemoteInstall.releaseRoot(root.resolve("lib/rdma-flux.jar"))).isEqualTo(root.toRealPath());
        Path link = Files.createSymbolicLink(dir.resolve("current"), root);
        assertThat(RemoteInstall.releaseRoot(link.resolve("lib/rdma-flux.jar"))).isEqualTo(root.toRealPath());
    }

    @Test
    void aCheckoutOrAStrayJarIsNotARelease() throws IOException {
        Path target = Files.createDirectories(dir.resolve("cli/target"));
        Path jar = Files.writeString(target.resolve("rdma-flux.jar"), "jar");
        assertThatThrownBy(() -> RemoteInstall.releaseRoot(jar)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("runs from a build checkout (" + jar.toRealPath() + ")");
        Path root = release(dir.resolve("broken"));
        Files.delete(root.resolve("runtime/bin/java"));
        assertThatThrownBy(() -> RemoteInstall.releaseRoot(root.resolve("lib/rdma-flux.jar")))
                .hasMessageContaining("is not in a release (no bin/ and runtime/ beside its lib/)");
        assertThatThrownBy(() -> RemoteInstall.releaseRoot(dir.resolve("none.jar")))
                .hasMessageStartingWith("--install-remote cannot find this host's release");
    }

    @Test
    void versionsThatCannotNameADirectoryAreNotLookedFor() {
        assertThat(RemoteInstall.lookup(new ReleaseVersion("0.1.0-SNAPSHOT", 1))).isNotNull();
        assertThat(RemoteInstall.lookup(new ReleaseVersion("../x", 1))).isNull();
        assertThat(RemoteInstall.lookup(new ReleaseVersion("1.0 beta", 1))).isNull();
        assertThatThrownBy(() -> RemoteInstall.from(new ReleaseVersion("a/b", 1), dir))
                .hasMessageContaining("cannot name a directory for version 'a/b'");
    }

    @Test
    void theAgentRunsFromTheCacheOfItsOwnVersionBeforePath() {
        String command = RemoteShell.create().release(RemoteInstall.lookup(new ReleaseVersion("0.3.1", 1)))
                .agentCommand("00ff");
        assertThat(command).startsWith("sh -c '").endsWith("' rdflux 0.3.1 agent --hello 00ff")
                .contains("$HOME/.cache/rdflux/$1").contains("sha256sum -c --status .rdflux-sha256");
        // --rdflux-path names the tool itself: no cache then.
        assertThat(RemoteShell.create().release(RemoteInstall.lookup(new ReleaseVersion("0.3.1", 1)))
                .rdfluxPath("/opt/rd/bin/rdflux").agentCommand("00ff")).isEqualTo("/opt/rd/bin/rdflux agent --hello 00ff");
    }

    @Test
    void versionsAreReadFromTheToolsOwnText() {
        assertThat(ReleaseVersion.parse("rdma-flux 0.2.0-SNAPSHOT (protocol 3, Java 17.0.9)"))
                .contains(new ReleaseVersion("0.2.0-SNAPSHOT", 3));
        assertThat(ReleaseVersion.parse("rdflux 2")).isEmpty();
        assertThat(ReleaseVersion.parse(null)).isEmpty();
        ReleaseVersion v = new ReleaseVersion("0.2.0", 1);
        assertThat(v.worksWith(new ReleaseVersion("0.2.5-SNAPSHOT", 1))).isTrue();
        assertThat(v.worksWith(new ReleaseVersion("0.3.0", 1))).isFalse();
        assertThat(v.worksWith(new ReleaseVersion("0.2.0", 2))).isFalse();
        assertThat(ReleaseVersion.local().version()).isNotBlank();
    }
}
