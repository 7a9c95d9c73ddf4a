package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A directory the copy creates is staged beside its final name until its stream ended, so that
 * a cut copy leaves no directory under that name (a re-run would copy into it, rdcp's
 * {@code dst/src}), and a re-run with a sync finds the staged part and sends only the rest.
 */
class StagedTreeTest {

    @TempDir
    Path dir;

    @Test
    void aCutCopyLeavesNothingUnderTheFinalNameAndASyncRerunSendsOnlyTheRest() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 40, 2 << 20, 5);
        Path dst = dir.resolve("dst");
        byte[] stream = TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults().withParallelFiles(0)).open());
        Flux<Chunk> cut = Trees.chunks(stream, 64 * 1024).take(stream.length / (64 * 1024) / 2)
                .concatWith(Flux.error(new IllegalStateException("connection lost")));

        assertThatThrownBy(() -> TreeSink.of(dst).writeTree(cut).block(T)).hasMessageContaining("connection lost");

        assertThat(dst).doesNotExist();
        Path staged = StagedTree.of(dst);
        assertThat(staged.getFileName().toString()).isEqualTo(".rdflux-dst.part");
        long arrived;
        try (var s = Files.walk(staged)) {
            // Files, not links to them; a hard link's second name is a link, not a file of its own.
            // The part kept of a large file cut short is resumed, not kept as it is.
            arrived = s.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && !p.getFileName().toString().startsWith(".rdflux-")).map(p -> {
                try {
                    return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).distinct().count();
        }
        assertThat(arrived).isPositive();

        // The re-run: the listing of dst is the staged part's; what arrived is kept, not sent again.
        TreeListing there = TreeListing.local(dst, false).block(T);
        TreeReport again = TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME)).open()).block(T);

        assertThat(again.complete()).isTrue();
        assertThat(again.unchanged()).isEqualTo(arrived);
        Trees.assertSameTree(dst, src);
        assertThat(staged).doesNotExist();
    }

    @Test
    void aCompleteCopyTakesItsNameAndKeepsTheRootsModeAndTime() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 5, 0, 6);
        Files.setPosixFilePermissions(src, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"));
        Files.setLastModifiedTime(src, java.nio.file.attribute.FileTime.fromMillis(1_400_000_000_000L));
        Path dst = dir.resolve("dst");

        TreeReport r = TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()).open()).block(T);

        assertThat(r.complete()).isTrue();
        Trees.assertSameTree(dst, src);
        assertThat(Files.getLastModifiedTime(dst)).isEqualTo(Files.getLastModifiedTime(src));
        assertThat(StagedTree.of(dst)).doesNotExist();
    }

    @Test
    void anExistingDestinationIsWrittenInPlace() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 5, 0, 7);
        Path dst = Files.createDirectory(dir.resolve("dst"));
        Files.writeString(dst.resolve("mine"), "kept");
        // Cut: what arrived is in dst itself, which existed.
        byte[] stream = TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults()).open());
        Flux<Chunk> cut = Trees.chunks(stream, 1024).take(stream.length / 1024 - 1)
                .concatWith(Flux.error(new IllegalStateException("connection lost")));
        assertThatThrownBy(() -> TreeSink.of(dst).writeTree(cut).block(T)).hasMessageContaining("connection lost");
        assertThat(StagedTree.of(dst)).doesNotExist();
        assertThat(dst.resolve("mine")).hasContent("kept");
        try (var s = Files.list(dst)) {
            assertThat(s.count()).isGreaterThan(1);
        }
    }

    @Test
    void somethingElseUnderTheStagingNameFailsWithOneLine() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 2, 0, 8);
        Path dst = dir.resolve("dst");
        Files.writeString(StagedTree.of(dst), "not a directory");

        assertThatThrownBy(() -> TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()).open()).block(T))
                .hasMessageContaining("cannot write " + dst).hasMessageContaining("is in the way and not a directory");
        assertThat(dst).doesNotExist();
    }

    @Test
    void aNameTooLongForThePrefixIsHashedIntoOneThatFits() {
        String longName = "n".repeat(250);
        String part = StagedTree.partName(longName);
        assertThat(part).startsWith(".rdflux-").endsWith(".part").hasSize(8 + 32 + 5);
        assertThat(StagedTree.partName(longName)).isEqualTo(part);   // the same on every run
        assertThat(StagedTree.partName("data")).isEqualTo(".rdflux-data.part");
    }
}
