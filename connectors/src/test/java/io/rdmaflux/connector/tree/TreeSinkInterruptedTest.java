package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a copy leaves when it stops half way: killed (nothing of the sink runs after its last
 * write) or failed cleanly (its abort runs). Into a directory the copy creates, files are written
 * under their own names, so a kill can leave a partial file there, but never one that a quick
 * sync (size and mtime) takes for complete; into an existing directory, each file stays whole
 * (old or new) under its name whatever happens.
 */
class TreeSinkInterruptedTest {

    @TempDir
    Path dir;

    @Test
    void aKilledCopyIntoAFreshDirectoryLeavesNothingASyncTakesForComplete() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        stoppedInsideBig(src, dst);   // and never told to commit or abort: killed

        // Killed here: the copy is staged beside dst, which does not exist; the large file is in
        // the staged directory under its own name, part of it.
        assertThat(dst).doesNotExist();
        Path staged = StagedTree.of(dst);
        Path big = staged.resolve("sub/big");
        assertThat(big).exists();
        assertThat(Files.size(big)).isLessThan(Files.size(src.resolve("sub/big")));
        assertThat(Files.getLastModifiedTime(big)).isNotEqualTo(Files.getLastModifiedTime(src.resolve("sub/big")));
        assertThat(Trees.temporaries(staged)).isEmpty();
        // The abandoned sink's writer threads still place the two small files it had queued: a
        // kill that came after them (on a loaded machine they may take a while).
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
                Files.exists(staged.resolve("a-small")) && Files.exists(staged.resolve("sub/a-small")));

        // The re-run with --sync: the listing of dst is the staged directory's, whose quick
        // check sends what is missing or partial; the copy then takes dst's name.
        TreeListing there = TreeListing.local(dst, false).block(T);
        assertThat(there.size()).isGreaterThan(1);
        TreeReport again = TreeSink.of(dst).writeTree(TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME)).open()).block(T);
        assertThat(again.complete()).isTrue();
        assertThat(again.files()).isGreaterThanOrEqualTo(1);
        assertThat(again.unchanged()).isGreaterThanOrEqualTo(2);   // the small files that arrived were kept
        Trees.assertSameTree(dst, src);
        assertThat(staged).doesNotExist();
    }

    @Test
    void aFailedCopyIntoAFreshDirectoryKeepsThePartialFileOnlyAsItsPartAndKeepsTheWholeOnes() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        TreeWriter writer = stoppedInsideBig(src, dst);

        assertThat(writer.abort()).startsWith("no partial file left under its name; what arrived of 1 large file is kept");

        // The whole files stay in the staged directory, for a re-run; nothing under dst's name;
        // the large file cut short only as its part, for a resume.
        assertThat(dst).doesNotExist();
        Path staged = StagedTree.of(dst);
        assertThat(staged.resolve("sub/big")).doesNotExist();
        assertThat(staged.resolve("sub/.rdflux-big.part")).exists();
        for (String small : new String[] {"a-small", "sub/a-small"}) {
            assertThat(staged.resolve(small)).hasSameBinaryContentAs(src.resolve(small));
            assertThat(Files.getLastModifiedTime(staged.resolve(small))).isEqualTo(Files.getLastModifiedTime(src.resolve(small)));
        }
        assertThat(Trees.temporaries(staged)).containsExactly(staged.resolve("sub/.rdflux-big.part"));
    }

    @Test
    void intoAnExistingDirectoryEachFileIsReplacedWholeOrNotAtAll() throws IOException {
        Path src = tree();
        Path dst = dir.resolve("dst");
        Files.createDirectories(dst.resolve("sub"));
        byte[] old = "the old contents".getBytes();
        Files.write(dst.resolve("sub/big"), old);
        TreeWriter writer = stoppedInsideBig(src, dst);

        // Killed here: the old file is whole under its name, the new one partial under a temporary name.
        assertThat(dst.resolve("sub/big")).hasBinaryContent(old);
        // The writer threads still place the small files queued before the cut, each through a
        // temporary name of its own: walking the tree while one is renamed would race it.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
                Files.exists(dst.resolve("a-small")) && Files.exists(dst.resolve("sub/a-small")));
        assertThat(Trees.temporaries(dst)).isNotEmpty();

        writer.abort();
        assertThat(dst.resolve("sub/big")).hasBinaryContent(old);
        // The random temporary name is gone; what arrived is kept as the file's part, for a resume.
        assertThat(Trees.temporaries(dst)).containsExactly(dst.resolve("sub/.rdflux-big.part"));
        assertThat(dst.resolve("sub/a-small")).hasSameBinaryContentAs(src.resolve("sub/a-small"));
    }

    @Test
    void aSmallFileWithAHoleHasZerosThereThoughItsBufferWasUsedBefore() throws IOException {
        // More small files than the sink has buffers: the later ones get buffers used before.
        Crafted stream = Crafted.tree();
        byte[] ones = new byte[4096];
        Arrays.fill(ones, (byte) 0xff);
        int files = TreeWriter.QUEUED_FILES + 50;
        for (int i = 0; i < files; i++) {
            stream.file("ones-" + i, ones);
        }
        byte[] expected = new byte[4096];
        expected[0] = 7;
        for (int i = 0; i < 50; i++) {
            int id = files + 1 + i;
            stream.entry(id, Crafted.FILE, Crafted.DATA_FLAG, 0644, expected.length, "holed-" + i, "")
                    .data(id, new byte[] {7}).hole(id, expected.length - 1)
                    .fileEnd(id, 0, expected.length, Crafted.crc(expected), "");
        }
        Path dst = dir.resolve("dst");

        TreeReport report = TreeSink.of(dst).writeTree(Trees.chunks(stream.end().bytes(), 1 << 16)).block(T);

        assertThat(report.complete()).isTrue();
        for (int i = 0; i < 50; i++) {
            assertThat(dst.resolve("holed-" + i)).hasBinaryContent(expected);
        }
        assertThat(dst.resolve("ones-0")).hasBinaryContent(ones);
    }

    /** Small files around a large one (written as its data arrives), all with old mtimes. */
    private Path tree() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Random r = new Random(11);
        Files.write(dir.resolve("src/a-small"), Trees.bytes(r, 3000));
        Files.write(src.resolve("a-small"), Trees.bytes(r, 5000));
        Files.write(src.resolve("big"), Trees.bytes(r, 3 * TreeWriter.QUEUED_MAX));
        Files.write(src.resolve("z-small"), Trees.bytes(r, 7000));
        try (var s = Files.walk(dir.resolve("src"))) {
            for (Path p : s.toList()) {
                Files.setLastModifiedTime(p, FileTime.from(1_500_000_000, TimeUnit.SECONDS));
            }
        }
        return dir.resolve("src");
    }

    /** A sink given the stream of {@code src} up to the middle of sub/big, as a process killed there would be. */
    private static TreeWriter stoppedInsideBig(Path src, Path dst) throws IOException {
        byte[] stream = streamOf(src);
        TreeWriter writer = new TreeWriter(dst, TreeSinkOptions.defaults());
        writer.open();
        writer.write(ByteBuffer.wrap(stream, 0, cutInside(stream, src.resolve("sub/big"))));
        return writer;
    }

    private static byte[] streamOf(Path src) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TreeSource.of(src, TreeSourceOptions.defaults().withParallelFiles(0)).open().doOnNext(c -> {
            ByteBuffer b = c.buffer();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.write(a, 0, a.length);
            c.release();
        }).blockLast(T);
        return out.toByteArray();
    }

    /** A length of {@code stream} that ends half way through {@code file}'s contents. */
    private static int cutInside(byte[] stream, Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        byte[] probe = Arrays.copyOfRange(content, content.length / 2, content.length / 2 + 64);
        for (int i = 0; i + probe.length <= stream.length; i++) {
            if (Arrays.equals(stream, i, i + probe.length, probe, 0, probe.length)) {
                return i;
            }
        }
        throw new AssertionError("the middle of " + file + " is not in the stream");
    }
}
