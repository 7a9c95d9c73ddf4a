package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.connector.TestSupport;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resume within a file: a large file cut part way keeps what arrived as its part file
 * ({@code .rdflux-NAME.part}, never under its name), and a sync against a listing that holds
 * the part sends only the rest, after the receiver checked the part against the SHA-256 of the
 * source's prefix; a part that does not match is not trusted.
 */
class ResumeTest {

    private static final int BIG = 8 << 20;

    @TempDir
    Path dir;

    @Test
    void aCutLargeFileKeepsItsPrefixAndASyncSendsOnlyTheRest() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        String said = cutInsideBig(src, dst);

        assertThat(said).contains("what arrived of 1 large file is kept (.rdflux-NAME.part)");
        Path staged = StagedTree.of(dst);
        Path part = staged.resolve("sub/.rdflux-big.part");
        assertThat(staged.resolve("sub/big")).as("never under its name").doesNotExist();
        long kept = Files.size(part);
        assertThat(kept).isBetween(1L, BIG - 1L);
        byte[] whole = Files.readAllBytes(src.resolve("sub/big"));
        assertThat(Files.readAllBytes(part)).isEqualTo(Arrays.copyOf(whole, (int) kept));

        byte[] stream = syncStream(src, dst);
        assertThat((long) stream.length).as("about the rest of the file, not all of it")
                .isLessThan(BIG - kept + (1 << 20));
        assertThat(ByteBuffer.wrap(stream, 4, 2).getShort()).as("a version 2 stream").isEqualTo((short) 2);
        TreeReport r = TreeSink.of(dst).writeTree(Trees.chunks(stream, 1 << 16)).block(T);

        assertThat(r.complete()).as(r.failureLines().toString()).isTrue();
        Trees.assertSameTree(dst, src);   // contents, modes, mtimes, links
        assertThat(Files.getAttribute(dst.resolve("sub/big"), "unix:ino"))
                .isEqualTo(Files.getAttribute(dst.resolve("sub/big-hardlink"), "unix:ino"));
        assertThat(Trees.temporaries(dst)).isEmpty();
    }

    @Test
    void aPartThatDoesNotMatchTheSourceIsNotTrustedAndTheNextRunSendsTheFileWhole() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        cutInsideBig(src, dst);
        Path part = StagedTree.of(dst).resolve("sub/.rdflux-big.part");
        try (RandomAccessFile f = new RandomAccessFile(part.toFile(), "rw")) {
            f.seek(Files.size(part) / 2);
            int b = f.read();
            f.seek(Files.size(part) / 2);
            f.write(b ^ 0x5a);   // altered where it was kept: same size, other bytes
        }

        TreeReport r = TreeSink.of(dst).writeTree(Trees.chunks(syncStream(src, dst), 1 << 16)).block(T);

        assertThat(r.complete()).isFalse();
        assertThat(String.join("\n", r.failureLines())).contains("sub/big: not resumed: the part of it kept here")
                .contains("its checksum differs").contains("run the copy again to send the file whole");
        assertThat(part).as("removed, not trusted").doesNotExist();
        assertThat(dst.resolve("sub/big")).doesNotExist();

        TreeReport again = TreeSink.of(dst).writeTree(Trees.chunks(syncStream(src, dst), 1 << 16)).block(T);
        assertThat(again.complete()).isTrue();
        Trees.assertSameTree(dst, src);
    }

    @Test
    void aPartShorterThanTheSendersOffsetIsNotTrustedEither() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        cutInsideBig(src, dst);
        Path part = StagedTree.of(dst).resolve("sub/.rdflux-big.part");
        byte[] stream = syncStream(src, dst);   // the listing said the part's size then
        try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(part) / 2);
        }

        TreeReport r = TreeSink.of(dst).writeTree(Trees.chunks(stream, 1 << 16)).block(T);

        assertThat(String.join("\n", r.failureLines())).contains("sub/big: not resumed").contains("it has ");
        assertThat(part).doesNotExist();
    }

    @Test
    void aResumedEntryInAVersion1StreamIsRefused() {
        // ENTRY 1, a file "f" of 10 bytes with DATA and RESUME, resumed at 5: fields as version 2 writes them.
        ByteBuffer e = ByteBuffer.allocate(5 + 28 + 1 + TreeFormat.RESUME_FIELDS);
        e.put((byte) 1).putInt(28 + 1 + TreeFormat.RESUME_FIELDS).putInt(1).put((byte) Crafted.FILE)
                .put((byte) (Crafted.DATA_FLAG | TreeFormat.F_RESUME)).putShort((short) 0644).putLong(0).putLong(10)
                .putShort((short) 1).put((byte) 'f').putShort((short) 0).putLong(5).put(new byte[32]);
        byte[] body = Crafted.tree().raw(e.array()).bytes();
        assertThatThrownBy(() -> TreeSink.of(dir.resolve("d")).writeTree(Trees.chunks(body, 1 << 16)).block(T))
                .hasMessageContaining("resumes a file, which a version 1 stream may not");
    }

    @Test
    void aPlainRerunRemovesTheStalePart() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        cutInsideBig(src, dst);
        Path part = StagedTree.of(dst).resolve("sub/.rdflux-big.part");
        assertThat(part).exists();

        TreeReport r = TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()).open()).block(T);

        assertThat(r.complete()).isTrue();
        Trees.assertSameTree(dst, src);
        assertThat(dst.resolve("sub/.rdflux-big.part")).as("stale once the file arrived whole").doesNotExist();
    }

    @Test
    void aCutSingleFileKeepsItsPrefixBesideTheDestinationAndASyncSendsOnlyTheRest() throws IOException {
        Path src = tree().resolve("sub/big");   // the tree's root is the file itself
        Path dst = dir.resolve("copy.iso");     // another name there, as rdcp big h2:copy.iso
        String said = cut(src, src, dst);

        assertThat(said).contains("what arrived of 1 large file is kept (.rdflux-NAME.part)");
        Path part = dir.resolve(".rdflux-copy.iso.part");
        assertThat(dst).as("never under its name").doesNotExist();
        long kept = Files.size(part);
        assertThat(kept).isBetween(1L, BIG - 1L);
        byte[] whole = Files.readAllBytes(src);
        assertThat(Files.readAllBytes(part)).isEqualTo(Arrays.copyOf(whole, (int) kept));

        // The listing as the other host sends it, and as it is read here: both offer the part.
        byte[] sent = sentListingSyncStream(src, dst);
        byte[] stream = syncStream(src, dst);
        for (byte[] s : new byte[][] {sent, stream}) {
            assertThat((long) s.length).as("about the rest of the file, not all of it")
                    .isLessThan(BIG - kept + (1 << 20));
        }
        TreeReport r = TreeSink.of(dst).writeTree(Trees.chunks(sent, 1 << 16)).block(T);

        assertThat(r.complete()).as(r.failureLines().toString()).isTrue();
        assertThat(Files.readAllBytes(dst)).isEqualTo(whole);
        assertThat(Files.getLastModifiedTime(dst)).isEqualTo(Files.getLastModifiedTime(src));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dst))).isEqualTo("rw-r-----");
        assertThat(part).as("renamed to the file's name").doesNotExist();
        assertThat(Trees.temporaries(dir)).isEmpty();
    }

    @Test
    void anAlteredPartOfASingleFileIsNotTrustedAndTheNextRunSendsItWhole() throws IOException {
        Path src = tree().resolve("sub/big");
        Path dst = dir.resolve("copy.iso");
        cut(src, src, dst);
        Path part = dir.resolve(".rdflux-copy.iso.part");
        try (RandomAccessFile f = new RandomAccessFile(part.toFile(), "rw")) {
            f.seek(Files.size(part) / 2);
            int b = f.read();
            f.seek(Files.size(part) / 2);
            f.write(b ^ 0x5a);   // same size, other bytes
        }

        TreeReport r = TreeSink.of(dst).writeTree(Trees.chunks(sentListingSyncStream(src, dst), 1 << 16)).block(T);

        assertThat(r.complete()).isFalse();
        assertThat(String.join("\n", r.failureLines())).contains("not resumed: the part of it kept here")
                .contains("its checksum differs");
        assertThat(part).as("removed, not trusted").doesNotExist();
        assertThat(dst).doesNotExist();

        byte[] again = sentListingSyncStream(src, dst);
        assertThat((long) again.length).as("sent whole").isGreaterThan(BIG / 2);
        assertThat(TreeSink.of(dst).writeTree(Trees.chunks(again, 1 << 16)).block(T).complete()).isTrue();
        assertThat(Files.readAllBytes(dst)).isEqualTo(Files.readAllBytes(src));
    }

    @Test
    void aPlainRerunOfASingleFileRemovesItsStalePart() throws IOException {
        Path src = tree().resolve("sub/big");
        Path dst = dir.resolve("copy.iso");
        cut(src, src, dst);
        Path part = dir.resolve(".rdflux-copy.iso.part");
        assertThat(part).exists();

        TreeReport r = TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()).open()).block(T);

        assertThat(r.complete()).isTrue();
        assertThat(Files.readAllBytes(dst)).isEqualTo(Files.readAllBytes(src));
        assertThat(part).as("stale once the file arrived whole").doesNotExist();
    }

    /** A tree with a large file (a hole in it, mode 0640, old mtime, a second hard-linked name) among small ones. */
    private Path tree() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Random r = new Random(17);
        Files.write(dir.resolve("src/a-small"), Trees.bytes(r, 3000));
        try (FileChannel ch = FileChannel.open(src.resolve("big"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(Trees.bytes(r, BIG / 2)), 0);
            ch.write(ByteBuffer.wrap(Trees.bytes(r, BIG / 4)), BIG - BIG / 4);   // a hole of 2 MiB between
        }
        Files.setPosixFilePermissions(src.resolve("big"), PosixFilePermissions.fromString("rw-r-----"));
        Files.createLink(src.resolve("big-hardlink"), src.resolve("big"));
        Files.write(src.resolve("z-small"), Trees.bytes(r, 7000));
        try (var s = Files.walk(dir.resolve("src"))) {
            for (Path p : s.toList()) {
                Files.setLastModifiedTime(p, FileTime.from(1_500_000_000, TimeUnit.SECONDS));
            }
        }
        return dir.resolve("src");
    }

    /** The stream of {@code src} cut at a quarter of sub/big's contents, as a lost connection cuts it; what the sink said. */
    private static String cutInsideBig(Path src, Path dst) throws IOException {
        return cut(src, src.resolve("sub/big"), dst);
    }

    /** The stream of the tree {@code src} cut at a quarter of {@code big}'s contents; what the sink said. */
    private static String cut(Path src, Path big, Path dst) throws IOException {
        byte[] stream = TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults()).open());
        byte[] content = Files.readAllBytes(big);
        byte[] probe = Arrays.copyOfRange(content, BIG / 4, BIG / 4 + 64);
        int cut = -1;
        for (int i = 0; i + probe.length <= stream.length && cut < 0; i++) {
            if (Arrays.equals(stream, i, i + probe.length, probe, 0, probe.length)) {
                cut = i;
            }
        }
        assertThat(cut).isPositive();
        TreeWriter writer = new TreeWriter(dst, TreeSinkOptions.defaults());
        writer.open();
        writer.write(ByteBuffer.wrap(stream, 0, cut));
        return writer.abort();
    }

    /** {@link #syncStream}, the listing of {@code dst} sent as a stream and read back, as from another host. */
    private static byte[] sentListingSyncStream(Path src, Path dst) {
        TreeListing there = TreeListing.read(TreeListing.source(dst, false).open()).block(T);
        return TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME)).open());
    }

    /** The stream a sync of {@code src} against the listing of {@code dst} sends. */
    private static byte[] syncStream(Path src, Path dst) {
        TreeListing there = TreeListing.local(dst, false).block(T);
        return TestSupport.collect(TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME)).open());
    }
}
