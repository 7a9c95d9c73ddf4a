package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static io.rdmaflux.connector.tree.Trees.listing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Listings, syncs by size and mtime or by content, and deletion that never follows an error. */
class TreeSyncTest {

    @TempDir
    Path dir;
    Path src;
    Path dst;

    @BeforeEach
    void firstCopy() throws IOException {
        src = Trees.varied(dir.resolve("src"), 200, 0, 21);
        dst = dir.resolve("dst");
        assertThat(copy(null, TreeSourceOptions.Compare.SIZE_AND_MTIME, false).complete()).isTrue();
    }

    @Test
    void aListingHasEveryEntryWithItsAttributes() throws IOException {
        TreeListing local = TreeListing.local(dst, true).block(T);
        TreeListing sent = TreeListing.read(TreeListing.source(dst, true).open()).block(T);
        assertThat(sent.entries()).containsExactlyElementsOf(local.entries());
        assertThat(sent.size()).isEqualTo(listing(dst).size());
        TreeEntry tool = sent.get("modes/tool").orElseThrow();
        assertThat(tool.kind()).isEqualTo(TreeEntry.Kind.FILE);
        assertThat(tool.mode()).isEqualTo(0755);
        assertThat(tool.size()).isEqualTo(10);
        assertThat(tool.checksum()).hasSize(32);
        assertThat(sent.get("links/dangling").orElseThrow().link()).isEqualTo("nowhere/at all");
        assertThat(TreeListing.read(TreeListing.source(dir.resolve("missing"), false).open()).block(T).size()).isZero();
    }

    @Test
    void aQuickSyncSendsOnlyFilesWhoseSizeOrMtimeDiffer() throws IOException {
        Files.write(src.resolve("modes/secret"), new byte[] {1, 2, 3});
        Files.setPosixFilePermissions(src.resolve("modes/tool"), PosixFilePermissions.fromString("rwxr-x---"));
        TreeReport report = copy(TreeListing.local(dst, false).block(T), TreeSourceOptions.Compare.SIZE_AND_MTIME, false);
        Trees.assertSameTree(dst, src);   // the mode change arrived without data
        assertThat(report.files()).isEqualTo(1);
        assertThat(report.bytes()).isEqualTo(3);
    }

    @Test
    void aChecksumSyncFindsContentThatChangedUnderTheSameSizeAndMtime() throws IOException {
        Path f = src.resolve("node_modules/pkg1/f1.js");
        FileTime mtime = Files.getLastModifiedTime(f);
        byte[] b = Files.readAllBytes(f);
        b[0] ^= 1;
        Files.write(f, b);
        Files.setLastModifiedTime(f, mtime);

        TreeReport quick = copy(TreeListing.local(dst, false).block(T), TreeSourceOptions.Compare.SIZE_AND_MTIME, false);
        assertThat(quick.files()).isZero();
        assertThat(listing(dst)).isNotEqualTo(listing(src));

        TreeReport sums = copy(TreeListing.local(dst, true).block(T), TreeSourceOptions.Compare.CHECKSUM, false);
        assertThat(sums.files()).isEqualTo(1);
        Trees.assertSameTree(dst, src);
    }

    @Test
    void deleteRemovesWhatTheSourceDoesNotHave() throws IOException {
        Files.write(dst.resolve("modes/extra"), new byte[] {1});
        Files.createDirectories(dst.resolve("node_modules/gone/deep"));
        Files.write(dst.resolve("node_modules/gone/deep/x"), new byte[] {1});
        Files.createSymbolicLink(dst.resolve("stray link"), dir.resolve("src"));
        TreeReport report = copy(TreeListing.local(dst, false).block(T), TreeSourceOptions.Compare.SIZE_AND_MTIME, true);
        Trees.assertSameTree(dst, src);
        assertThat(report.deleted()).isEqualTo(3);
        assertThat(report.deletionSkipped()).isFalse();
        assertThat(src).isDirectory();   // the link was removed, not what it points to
    }

    @Test
    void deleteNeverRunsAfterAnError() throws Exception {
        Files.write(dst.resolve("extra"), new byte[] {1});
        // A source entry that fails: a name the source cannot send.
        Process p = new ProcessBuilder("sh", "-c", "printf x > \"$(printf 'bad\\377')\"").directory(src.toFile()).start();
        assertThat(p.waitFor()).isZero();
        TreeReport report = copy(TreeListing.local(dst, false).block(T), TreeSourceOptions.Compare.SIZE_AND_MTIME, true);
        assertThat(report.complete()).isFalse();
        assertThat(report.deletionSkipped()).isTrue();
        assertThat(report.deleted()).isZero();
        assertThat(dst.resolve("extra")).exists();
    }

    @Test
    void aFileKeptAsItIsButChangedAtTheDestinationMeanwhileFailsByName() throws IOException {
        TreeListing there = TreeListing.local(dst, false).block(T);
        Files.write(dst.resolve("modes/secret"), new byte[] {1, 2, 3, 4, 5, 6});
        TreeReport report = copy(there, TreeSourceOptions.Compare.SIZE_AND_MTIME, false);
        assertThat(report.failureLines()).containsExactly(
                "modes/secret: was to be kept as it is, but changed at the destination since it was listed");
    }

    private TreeReport copy(TreeListing baseline, TreeSourceOptions.Compare compare, boolean delete) {
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults().withBaseline(baseline, compare));
        return TreeSink.of(dst, TreeSinkOptions.defaults().withDelete(delete)).writeTree(source.open()).block(T);
    }
}
