package io.rdmaflux.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The .deb mvn package leaves beside the tarball, read with dpkg-deb (never installed on this
 * machine): its control fields, the release under /opt/rdflux with the tarball's modes, the
 * tools linked into /usr/bin, and, unpacked into a temporary directory, a launcher that runs and
 * the maintainer scripts that make and remove its start-up archive.
 */
class DebE2ETest {

    private static final String VERSION = System.getProperty("rdflux.version", "0.1.0-SNAPSHOT");
    private static final Path DEB = Path.of(System.getProperty("rdflux.deb", "target/rdflux_" + VERSION + "_amd64.deb"));
    private static final List<String> TOOLS = List.of("rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux");

    @TempDir
    Path dir;

    @Test
    void theControlFieldsNameThePackageItsVersionAndArchitecture() {
        assertThat(DEB).isRegularFile();
        Installed info = Installed.run(dir, System.getenv("PATH"), "dpkg-deb", "-I", DEB.toString());
        assertThat(info.exitCode()).as(info.describe()).isZero();
        // dpkg orders a version's "~" before anything: 0.1.0~SNAPSHOT comes before the release 0.1.0.
        assertThat(info.out()).contains(" Package: rdflux\n", " Version: " + VERSION.replace('-', '~') + "\n",
                " Architecture: amd64\n", " Depends: bash, coreutils\n");
    }

    @Test
    void theReleaseLiesUnderOptWithItsModesAndTheToolsAreLinkedIntoUsrBin() {
        Installed list = Installed.run(dir, System.getenv("PATH"), "dpkg-deb", "-c", DEB.toString());
        assertThat(list.exitCode()).as(list.describe()).isZero();
        List<String> lines = list.out().lines().toList();
        for (String t : TOOLS) {
            assertThat(lines).anyMatch(l -> l.startsWith("-rwxr-xr-x root/root ") && l.endsWith(" ./opt/rdflux/bin/" + t));
            assertThat(lines).anyMatch(l -> l.startsWith("l") && l.endsWith(" ./usr/bin/" + t + " -> /opt/rdflux/bin/" + t));
        }
        for (String helper : List.of("rdflux-launch", "rdflux-warm-client", "rdflux-standby-client", "rdflux-askpass")) {
            assertThat(lines).anyMatch(l -> l.startsWith("-rwxr-xr-x root/root ") && l.endsWith(" ./opt/rdflux/bin/" + helper));
        }
        assertThat(lines).anyMatch(l -> l.startsWith("-rwxr-xr-x root/root ") && l.endsWith(" ./opt/rdflux/runtime/bin/java"));
        assertThat(lines).anyMatch(l -> l.startsWith("-rw-r--r-- root/root ") && l.endsWith(" ./opt/rdflux/lib/rdma-flux.jar"));
        assertThat(lines).anyMatch(l -> l.endsWith(" ./opt/rdflux/install.sh"));
    }

    @Test
    void itsFilesUnpackedElsewhereRun() {
        Installed x = Installed.run(dir, System.getenv("PATH"), "dpkg-deb", "-x", DEB.toString(), dir.resolve("root").toString());
        assertThat(x.exitCode()).as(x.describe()).isZero();
        Installed version = Installed.run(dir, "/usr/bin:/bin", dir.resolve("root/opt/rdflux/bin/rdflux").toString(),
                "--version");
        assertThat(version.exitCode()).as(version.describe()).isZero();
        assertThat(version.out()).startsWith("rdma-flux " + VERSION + " (");
    }

    @Test
    void postinstMakesTheStartUpArchiveTheToolsUseAndPrermRemovesIt() {
        Path root = dir.resolve("root");
        Installed x = Installed.run(dir, System.getenv("PATH"), "dpkg-deb", "-x", DEB.toString(), root.toString());
        assertThat(x.exitCode()).as(x.describe()).isZero();
        Installed e = Installed.run(dir, System.getenv("PATH"), "dpkg-deb", "-e", DEB.toString(), dir.resolve("control").toString());
        assertThat(e.exitCode()).as(e.describe()).isZero();
        Path lib = root.resolve("opt/rdflux/lib");
        Path rdflux = root.resolve("opt/rdflux/bin/rdflux");
        assertThat(Installed.mainClassSource(dir, rdflux)).as("before postinst").doesNotContain("shared objects file");

        // As dpkg runs it, with DPKG_ROOT naming the root it unpacked into (dpkg --root).
        Installed postinst = Installed.start(dir, "/usr/bin:/bin", Map.of("DPKG_ROOT", root.toString()),
                dir.resolve("control/postinst").toString(), "configure");
        assertThat(postinst.exitCode()).as(postinst.describe()).isZero();
        assertThat(postinst.err()).isEmpty();
        assertThat(lib.resolve("rdma-flux.jsa")).isRegularFile();
        assertThat(Installed.mainClassSource(dir, rdflux)).as("after postinst").contains("source: shared objects file");

        Installed prerm = Installed.start(dir, "/usr/bin:/bin", Map.of("DPKG_ROOT", root.toString()),
                dir.resolve("control/prerm").toString(), "remove");
        assertThat(prerm.exitCode()).as(prerm.describe()).isZero();
        assertThat(lib.resolve("rdma-flux.jsa")).doesNotExist();
        assertThat(lib.resolve("rdma-flux.jsa.for")).doesNotExist();
    }
}
