package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.TestSupport;
import io.rdmaflux.connector.SourceOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

/** TreeSource straight into TreeSink (no channel), compared by an independent listing. */
class TreeRoundTripTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "parallelFiles={0}")
    @ValueSource(ints = {0, 1, 4})
    void aVariedTreeArrivesIdentical(int parallel) throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 600, 3 << 20, 1);
        Path dst = dir.resolve("dst");
        BufferPool pool = new BufferPool("tree", 256 * 1024, 8);
        TreeSourceOptions options = TreeSourceOptions.defaults().withParallelFiles(parallel)
                .withLargeFileSize(1 << 20).withIo(SourceOptions.defaults().withPool(pool));

        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src, options).open()).block(T);

        assertThat(report.failureLines()).isEmpty();
        assertThat(report.complete()).isTrue();
        Trees.assertSameTree(dst, src);
        assertThat(Files.readAttributes(dst.resolve("links/hard link"), "unix:ino", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(Files.readAttributes(dst.resolve("links/original"), "unix:ino", LinkOption.NOFOLLOW_LINKS));
        assertThat(report.hardLinks()).isEqualTo(1);
        assertThat(report.symlinks()).isEqualTo(4);
        assertThat(report.files()).isEqualTo(600 + 11);
        assertThat(Trees.temporaries(dst)).isEmpty();
        assertThat(pool.outstanding()).isZero();
        assertThat(pool.allocatedBytes()).isLessThanOrEqualTo(8 * 256 * 1024);
    }

    @Test
    void aStreamCutAnywhereArrivesTheSame() throws IOException {
        // Every cut size on a tree of small files; larger cuts on one with large and sparse files too.
        cutAnywhere(Trees.varied(dir.resolve("small"), 40, 0, 6), new int[] {1, 2, 3, 5, 8, 13});
        cutAnywhere(Trees.varied(dir.resolve("large"), 40, 300_000, 7), new int[] {4093, 65536 + 17});
    }

    private void cutAnywhere(Path src, int[] pieces) throws IOException {
        byte[] stream = TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults().withLargeFileSize(100_000)).open());
        for (int piece : pieces) {
            Path dst = dir.resolve(src.getFileName() + "-cut-" + piece);
            TreeReport report = TreeSink.of(dst).writeTree(Trees.chunks(stream, piece)).block(T);
            assertThat(report.complete()).as("cut every %d bytes", piece).isTrue();
            Trees.assertSameTree(dst, src);
        }
    }

    @Test
    void holesStayHoles() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 0, 4 << 20, 2);
        Path dst = dir.resolve("dst");
        TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults().withLargeFileSize(1 << 20)).open())
                .block(T);
        Path sparse = dst.resolve("weights/sparse.img");
        assertThat(TestSupport.sha256(sparse)).isEqualTo(TestSupport.sha256(src.resolve("weights/sparse.img")));
        assertThat(Files.size(sparse)).isEqualTo(5L * (4 << 20));
        // Allocated blocks, from du: far fewer than the length.
        assertThat(blocks(sparse) * 512).isLessThan(2L << 20);
    }

    @Test
    void aTreeOfOneFileAndALinkAtTheRootIsFollowed() throws IOException {
        Path file = Trees.varied(dir.resolve("src"), 0, 0, 3).resolve("名前 with spaces.bin");
        Path link = Files.createSymbolicLink(dir.resolve("root link"), file);
        Path dst = dir.resolve("copy.bin");
        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(link).open()).block(T);
        assertThat(report.files()).isEqualTo(1);
        assertThat(Trees.describe(dst)).isEqualTo(Trees.describe(file));
    }

    @Test
    void whatIsInTheWayIsReplacedOrReported() throws IOException {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("was a file"));
        Files.write(src.resolve("was a file/x"), new byte[] {1});
        Files.write(src.resolve("was a dir"), new byte[] {2});
        Files.write(src.resolve("other"), new byte[] {3});
        Path dst = dir.resolve("dst");
        Files.createDirectories(dst.resolve("was a dir/full"));
        Files.write(dst.resolve("was a file"), new byte[] {9});

        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);

        assertThat(Files.readAllBytes(dst.resolve("was a file/x"))).containsExactly(1);
        assertThat(Files.readAllBytes(dst.resolve("other"))).containsExactly(3);
        assertThat(report.failureLines()).singleElement().asString().startsWith("was a dir: cannot write it: ");
        assertThat(Files.isDirectory(dst.resolve("was a dir/full"))).isTrue();
        assertThat(Trees.temporaries(dst)).isEmpty();
    }

    @Test
    void specialFilesAreSkippedWithAWarningAndBadNamesFailByName() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.write(src.resolve("kept"), new byte[] {1, 2, 3});
        Process p = new ProcessBuilder("mkfifo", src.resolve("fifo").toString()).start();
        assertThat(p.waitFor()).isZero();
        // A name that is not UTF-8, made by the shell (Java cannot name it).
        p = new ProcessBuilder("sh", "-c", "printf x > \"$(printf 'bad\\377name')\"").directory(src.toFile()).start();
        assertThat(p.waitFor()).isZero();
        Path dst = dir.resolve("dst");

        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);
        SinkResult result = TreeSink.of(dir.resolve("dst2")).write(TreeSource.of(src).open()).block(T);

        assertThat(result.complete()).isFalse();
        assertThat(result.failures()).singleElement().asString().contains("its name is not valid");
        assertThat(report.warnings()).containsExactly("fifo: skipped: a FIFO (special files are not copied)");
        assertThat(report.failureLines()).singleElement().asString()
                .contains("its name is not valid in the file-name encoding");
        assertThat(report.complete()).isFalse();
        assertThat(Trees.listing(dst)).containsOnlyKeys(".", "kept");
    }

    @Test
    void memoryStaysWithinATinyPoolWhateverTheTreeSize() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 1000, 2 << 20, 4);
        BufferPool pool = new BufferPool("tiny", TreeSourceOptions.MIN_CHUNK_SIZE, 2);
        TreeSourceOptions options = TreeSourceOptions.defaults().withLargeFileSize(256 * 1024)
                .withIo(SourceOptions.defaults().withPool(pool));
        Path dst = dir.resolve("dst");
        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src, options).open()).block(T);
        assertThat(report.complete()).isTrue();
        Trees.assertSameTree(dst, src);
        assertThat(pool.allocatedBytes()).isEqualTo(2L * TreeSourceOptions.MIN_CHUNK_SIZE);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void cancellingMidStreamGivesBackEveryBufferAndClosesEveryFile() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 300, 2 << 20, 8);
        BufferPool pool = new BufferPool("cancelled", 64 * 1024, 6);
        TreeSourceOptions options = TreeSourceOptions.defaults().withLargeFileSize(256 * 1024)
                .withIo(SourceOptions.defaults().withPool(pool));
        for (int taken : new int[] {1, 3, 20, 60}) {
            TreeSource.of(src, options).open().take(taken).doOnNext(Chunk::release)
                    .doOnDiscard(Chunk.class, Chunk::releaseQuietly).blockLast(T);
            TestSupport.await("buffers back after " + taken + " chunks", () -> pool.outstanding() == 0);
            TestSupport.await("files closed after " + taken + " chunks", () -> openFilesUnder(src) == 0);
        }
    }

    @Test
    void aStreamThatFailsMidFileLeavesNoPartialFile() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 20, 2 << 20, 9);
        byte[] stream = TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults().withLargeFileSize(1 << 20)).open());
        Path dst = dir.resolve("dst");
        Flux<Chunk> cut = Trees.chunks(stream, 100_000).take(stream.length / 100_000 - 3)
                .concatWith(Flux.error(new IllegalStateException("connection lost")));
        assertThatThrownBy(() -> TreeSink.of(dst).writeTree(cut).block(T))
                .hasMessageContaining("connection lost").hasMessageContaining("kept (.rdflux-NAME.part)");
        // The directory the copy made is staged beside dst until complete: dst itself never appeared.
        // What arrived of the large file being written is kept as its part, for a resume, and
        // nothing else: no random temporary name, nothing partial under its own name.
        assertThat(dst).doesNotExist();
        assertThat(Trees.temporaries(StagedTree.of(dst))).isNotEmpty()
                .allSatisfy(p -> assertThat(p.getFileName().toString()).matches("\\.rdflux-(shard-\\d\\.bin|sparse\\.img)\\.part"));
    }

    /** How many of this process's file descriptors are open on files under {@code dir}. */
    private static long openFilesUnder(Path dir) {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(dir);
                } catch (IOException e) {
                    return false;   // closed meanwhile
                }
            }).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static long blocks(Path p) throws IOException {
        try {
            Process du = new ProcessBuilder("stat", "-c", "%b", p.toString()).start();
            String out = new String(du.getInputStream().readAllBytes()).trim();
            du.waitFor();
            return Long.parseLong(out);
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
    }
}
