package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Setuid, setgid and sticky bits at the sink: kept on directories (as rsync -a), setuid and
 * setgid dropped from files with one warning that counts them, sticky kept; on a new copy and
 * on a sync that changes only the mode.
 */
class TreeModeBitsTest {

    @TempDir
    Path dir;
    Path src;
    Path dst;

    @BeforeEach
    void tree() throws IOException {
        src = Files.createDirectories(dir.resolve("src"));
        dst = dir.resolve("dst");
        Files.createDirectories(src.resolve("tmp"));
        Files.createDirectories(src.resolve("shared"));
        Files.write(src.resolve("shared/suid"), new byte[] {1});
        Files.write(src.resolve("shared/sgid"), new byte[] {2});
        Files.write(src.resolve("shared/sticky"), new byte[] {3});
        chmod("shared/suid", 04755);
        chmod("shared/sgid", 02755);
        chmod("shared/sticky", 01644);
        chmod("tmp", 01777);
        chmod("shared", 02755);
    }

    @Test
    void aNewCopyKeepsStickyAndSetgidOnDirectoriesAndDropsSetIdFromFilesWithOneWarning() throws IOException {
        TreeReport r = copy(null);
        assertThat(r.complete()).isTrue();
        assertThat(mode(dst.resolve("tmp"))).isEqualTo(01777);
        assertThat(mode(dst.resolve("shared"))).isEqualTo(02755);
        assertThat(mode(dst.resolve("shared/suid"))).isEqualTo(0755);
        assertThat(mode(dst.resolve("shared/sgid"))).isEqualTo(0755);
        assertThat(mode(dst.resolve("shared/sticky"))).isEqualTo(01644);
        assertThat(r.warnings()).hasSize(1);
        assertThat(r.warnings().get(0)).matches("shared/s[ug]id: setuid/setgid bits dropped from this file and 1 more"
                + " \\(a copy never makes set-id programs; chmod u\\+s or g\\+s them yourself where you trust them\\)");
    }

    @Test
    void aSyncThatChangesOnlyTheModeBringsTheBitsOver() throws IOException {
        chmod("shared/suid", 0755);
        chmod("shared/sgid", 0755);
        chmod("shared/sticky", 0644);
        chmod("tmp", 0777);
        chmod("shared", 0755);
        assertThat(copy(null).warnings()).isEmpty();
        assertThat(mode(dst.resolve("tmp"))).isEqualTo(0777);

        chmod("shared/suid", 04750);
        chmod("shared/sticky", 01644);
        chmod("tmp", 01777);
        chmod("shared", 03775);
        TreeReport r = copy(TreeListing.local(dst, false).block(T));
        assertThat(r.files()).as("no data sent").isZero();
        assertThat(r.unchanged()).isEqualTo(3);
        assertThat(mode(dst.resolve("tmp"))).isEqualTo(01777);
        assertThat(mode(dst.resolve("shared"))).isEqualTo(03775);
        assertThat(mode(dst.resolve("shared/sticky"))).isEqualTo(01644);
        assertThat(mode(dst.resolve("shared/suid"))).isEqualTo(0750);
        assertThat(r.warnings()).singleElement().asString().startsWith("shared/suid: setuid/setgid bits dropped from this file (");
    }

    private TreeReport copy(TreeListing baseline) {
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(baseline, TreeSourceOptions.Compare.SIZE_AND_MTIME));
        return TreeSink.of(dst, TreeSinkOptions.defaults()).writeTree(source.open()).block(T);
    }

    private void chmod(String path, int mode) throws IOException {
        Files.setAttribute(src.resolve(path), "unix:mode", mode);
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }
}
