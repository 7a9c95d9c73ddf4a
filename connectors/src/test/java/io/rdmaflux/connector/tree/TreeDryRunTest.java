package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static io.rdmaflux.connector.tree.Trees.listing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dry run names what a copy would write and delete, and leaves the destination exactly as it was. */
class TreeDryRunTest {

    @TempDir
    Path dir;

    /** What the sink told its listener: "copy PATH" and "delete PATH" lines. */
    private final List<String> told = new CopyOnWriteArrayList<>();

    private final TreeListener names = new TreeListener() {
        @Override
        public void onDone(TreeEntry entry, long bytes) {
            if (entry.kind() == TreeEntry.Kind.FILE) {
                told.add("copy " + entry.path());
            }
        }

        @Override
        public void onKept(TreeEntry entry) {
            // current at the destination: not copied
        }

        @Override
        public void onDeleted(String path) {
            told.add("delete " + path);
        }
    };

    @Test
    void aDryRunNamesWhatWouldChangeAndChangesNothing() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 40, 1, 7);
        Path dst = dir.resolve("dst");
        TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);
        // The destination drifts: a changed file, an extra file, an extra directory.
        Path changed = dst.resolve("modes/tool");
        Files.write(changed, new byte[] {9, 9});
        Files.write(dst.resolve("modes/extra"), new byte[] {1});
        Files.createDirectories(dst.resolve("gone/deep"));
        Files.write(dst.resolve("gone/deep/x"), new byte[] {1});
        Map<String, String> before = listing(dst);

        TreeListing baseline = TreeListing.local(dst, false).block(T);
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(baseline, TreeSourceOptions.Compare.SIZE_AND_MTIME));
        TreeReport report = TreeSink.of(dst, TreeSinkOptions.defaults().withDelete(true).withDryRun(true)
                .withListener(names)).writeTree(source.open()).block(T);

        assertThat(listing(dst)).isEqualTo(before);
        assertThat(report.complete()).isTrue();
        assertThat(told).containsExactlyInAnyOrder("copy modes/tool", "delete gone", "delete modes/extra");
        assertThat(report.files()).isEqualTo(1);
        assertThat(report.deleted()).isEqualTo(2);
    }

    @Test
    void aDryRunIntoAMissingDirectoryMakesNothing() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 10, 0, 3);
        Path parent = dir.resolve("out");
        Files.createDirectory(parent);
        // dst/ of rdcp: a real run would make out/new and then out/new/src.
        TreeReport report = TreeSink.of(parent.resolve("new/src"), TreeSinkOptions.defaults().withDryRun(true)
                .withListener(names)).writeTree(TreeSource.of(src).open()).block(T);

        assertThat(report.complete()).isTrue();
        assertThat(report.files()).isPositive();
        assertThat(told).isNotEmpty();
        try (var s = Files.list(parent)) {
            assertThat(s).isEmpty();
        }
    }
}
