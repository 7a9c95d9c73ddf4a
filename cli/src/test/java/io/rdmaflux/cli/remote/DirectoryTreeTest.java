package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one way cli and cli.remote remove a tree they made: all of it, links removed and never followed. */
class DirectoryTreeTest {

    @TempDir
    Path dir;

    @Test
    void removesTheWholeTreeAndNothingALinkNames() throws Exception {
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Path kept = Files.writeString(outside.resolve("kept"), "kept");
        Path tree = Files.createDirectories(dir.resolve("tree/a/b"));
        Files.writeString(tree.resolve("f"), "x");
        Files.createSymbolicLink(dir.resolve("tree/a/to-outside"), outside);
        Files.createSymbolicLink(dir.resolve("tree/to-kept"), kept);

        assertThat(DirectoryTree.removeAll(dir.resolve("tree"))).isTrue();

        assertThat(dir.resolve("tree")).doesNotExist();
        assertThat(kept).hasContent("kept");
    }

    @Test
    void aTreeThatIsNotThereIsGone() {
        assertThat(DirectoryTree.removeAll(dir.resolve("missing"))).isTrue();
    }

    @Test
    void aLinkGivenAsTheTreeIsRemovedNotFollowed() throws Exception {
        Path target = Files.createDirectory(dir.resolve("target"));
        Files.writeString(target.resolve("f"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);

        assertThat(DirectoryTree.removeAll(link)).isTrue();

        assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(target.resolve("f")).hasContent("x");
    }

    @Test
    void whatCannotBeRemovedIsSaid() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree/locked"));
        Files.writeString(tree.resolve("f"), "x");
        tree.toFile().setWritable(false);
        try {
            // root may remove it anyway: then it says gone, which is true.
            boolean gone = DirectoryTree.removeAll(dir.resolve("tree"));
            assertThat(gone).isEqualTo(!Files.exists(dir.resolve("tree"), LinkOption.NOFOLLOW_LINKS));
        } finally {
            tree.toFile().setWritable(true);
        }
    }
}
