package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.connector.tree.FileChange.Stat;
import io.rdmaflux.connector.tree.TreeWalker.Item;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Change detection on a file read for the tree stream: the rule alone, then on real files. */
class FileChangeTest {

    private static final TreeEntry WALK = new TreeEntry("f", TreeEntry.Kind.FILE, 0644, 1_000L, 100, null, null);
    private static final long CTIME = 2_000L;

    @TempDir
    Path dir;

    @Test
    void theRuleSaysWhatChangedInItsOrder() {
        Stat same = new Stat(100, 1_000L, CTIME);
        assertThat(FileChange.verdict(WALK, CTIME, 100, 100, same)).isNull();
        assertThat(FileChange.verdict(WALK, CTIME, 100, 40, same))
                .isEqualTo("shrank while it was read (40 of 100 bytes)");
        assertThat(FileChange.verdict(WALK, CTIME, 100, 40, null))   // a short read comes first
                .isEqualTo("shrank while it was read (40 of 100 bytes)");
        assertThat(FileChange.verdict(WALK, CTIME, 100, 100, null)).isEqualTo("vanished while it was read");
        assertThat(FileChange.verdict(WALK, CTIME, 100, 100, new Stat(130, 5L, 6L)))
                .isEqualTo("changed size while it was read (100 -> 130 bytes)");
        assertThat(FileChange.verdict(WALK, CTIME, 100, 100, new Stat(100, 1_001L, CTIME)))
                .isEqualTo("changed while it was read");
        assertThat(FileChange.verdict(WALK, CTIME, 100, 100, new Stat(100, 1_000L, CTIME + 1)))
                .isEqualTo("changed while it was read");
    }

    /** The walk's item for the one file in {@code dir}. */
    private Item walked(Path file) throws IOException {
        try (TreeWalker w = new TreeWalker(dir, false)) {
            for (Item i = w.peek(); i != null; w.advance(), i = w.peek()) {
                if (!i.isNotice() && file.equals(i.file)) {
                    return i;
                }
            }
        }
        throw new AssertionError("not walked: " + file);
    }

    @Test
    void aRealFileReadToItsEndIsTheWalksUntilItIsTouched() throws IOException {
        Path f = dir.resolve("f");
        Files.write(f, new byte[100]);
        Item item = walked(f);
        assertThat(FileChange.since(item, 100, 100)).isNull();
        assertThat(FileChange.since(item, 100, 99)).isEqualTo("shrank while it was read (99 of 100 bytes)");

        Files.setLastModifiedTime(f, FileTime.fromMillis(item.entry.mtimeNanos() / 1_000_000 - 5_000));
        assertThat(FileChange.since(item, 100, 100)).isEqualTo("changed while it was read");

        Files.write(f, new byte[7], StandardOpenOption.APPEND);
        assertThat(FileChange.since(item, 100, 100)).isEqualTo("changed size while it was read (100 -> 107 bytes)");

        Files.delete(f);
        assertThat(FileChange.since(item, 100, 100)).isEqualTo("vanished while it was read");
    }

    @Test
    void anOpenFileReadsInPiecesWithItsChecksumAndEndsClosed() throws IOException {
        Random rnd = new Random(22);
        byte[] data = new byte[10_000];
        rnd.nextBytes(data);
        Path f = dir.resolve("f");
        Files.write(f, data);
        Item item = walked(f);
        FileChannel ch = FileChannel.open(f, StandardOpenOption.READ);
        SourceFile open = new SourceFile(item, ch, data.length);
        ByteBuffer b = ByteBuffer.allocate(data.length + 100);
        while (!open.done()) {
            int n = open.read(b, (int) Math.min(1 + rnd.nextInt(3000), open.left()));
            assertThat(n).isPositive();   // and b's position is past what was read
        }
        assertThat(open.position()).isEqualTo(data.length);
        assertThat(b.flip().slice()).isEqualTo(ByteBuffer.wrap(data));

        ByteBuffer end = ByteBuffer.allocate(TreeFormat.FILE_END_MAX);
        assertThat(open.end(end, 3)).isNull();
        assertThat(ch.isOpen()).isFalse();
        CRC32C crc = new CRC32C();
        crc.update(data);
        // An OK FILE_END ends with the length read, the CRC32C of it, and an empty reason.
        assertThat(end.getLong(end.position() - 14)).isEqualTo(data.length);
        assertThat(end.getInt(end.position() - 6)).isEqualTo((int) crc.getValue());
        assertThat(end.getShort(end.position() - 2)).isZero();
    }
}
