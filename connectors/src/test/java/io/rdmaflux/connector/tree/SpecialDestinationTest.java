package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static io.rdmaflux.testing.SpecialFiles.S_IFCHR;
import static io.rdmaflux.testing.SpecialFiles.S_IFIFO;
import static io.rdmaflux.testing.SpecialFiles.S_IFREG;
import static io.rdmaflux.testing.SpecialFiles.charDevice;
import static io.rdmaflux.testing.SpecialFiles.fifo;
import static io.rdmaflux.testing.SpecialFiles.type;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.connector.ConnectorException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tree sink whose destination is not a regular file. A tree of one file is written through an
 * existing character device or FIFO, as cp writes one, never replaced by a regular file; inside
 * a tree, a special file where the source has a file is replaced, as rsync does. Devices are made
 * with mknod (the numbers of /dev/null, 1,3) and FIFOs with mkfifo in a temporary directory,
 * never the system's own. A block device would need a loop device, which this host lacks: the
 * character device and the FIFO stand for it (the code path is the same but for fsync).
 */
class SpecialDestinationTest {


    @TempDir
    Path dir;

    @Test
    void aTreeOfOneFileIsWrittenThroughACharacterDevice() throws Exception {
        Path src = file(dir.resolve("src"), 300_000, 1);
        Path dev = charDevice(dir.resolve("null"));

        TreeReport report = TreeSink.of(dev).writeTree(TreeSource.of(src).open()).block(T);

        assertThat(report.complete()).isTrue();
        assertThat(report.files()).isEqualTo(1);
        assertThat(report.bytes()).isEqualTo(300_000);
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(Trees.temporaries(dir)).isEmpty();
    }

    @Test
    void aTreeOfOneFileIsWrittenThroughAFifoHolesAsZeros() throws Exception {
        // Zeros in the middle and at the end travel as holes: through a FIFO they must be written.
        byte[] data = new byte[3 << 20];
        new Random(2).nextBytes(data);
        Arrays.fill(data, 1 << 20, 2 << 20, (byte) 0);
        Arrays.fill(data, data.length - (512 << 10), data.length, (byte) 0);
        Path src = dir.resolve("sparse");
        Files.write(src, data);
        Path fifo = fifo(dir.resolve("fifo"));
        CompletableFuture<byte[]> read = reader(fifo);

        TreeReport report = TreeSink.of(fifo).writeTree(TreeSource.of(src,
                TreeSourceOptions.defaults().withLargeFileSize(1 << 20)).open()).block(T);

        assertThat(report.complete()).isTrue();
        assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(data);
        assertThat(type(fifo)).isEqualTo(S_IFIFO);
        assertThat(Trees.temporaries(dir)).isEmpty();
    }

    @Test
    void aDeviceIsNotBoundedByTheSizeOfTheFileSystemItSitsIn() throws Exception {
        // rdcp of a file larger than /dev's small devtmpfs to /dev/null must not be refused as
        // "more than the destination's whole file system": the bytes go to the device. The
        // sender declares a size no file system holds, sends a little and then fails the file,
        // so the sink's verdict is the sender's reason, not a size refusal up front.
        Path dev = charDevice(dir.resolve("null"));
        byte[] some = new byte[1000];
        byte[] stream = new Crafted().header(0)
                .entry(0, Crafted.FILE, Crafted.DATA_FLAG, 0644, Long.MAX_VALUE, "", "")
                .data(0, some).fileEnd(0, 1, some.length, 0, "read error on the sender").end().bytes();

        TreeReport report = TreeSink.of(dev).writeTree(Trees.chunks(stream, 5)).block(T);

        assertThat(report.complete()).isFalse();
        assertThat(String.join("\n", report.failureLines())).contains("read error on the sender")
                .doesNotContain("whole file system");
        assertThat(type(dev)).isEqualTo(S_IFCHR);
    }

    @Test
    void aLinkToADeviceIsFollowedAsCpFollowsIt() throws Exception {
        Path src = file(dir.resolve("src"), 10_000, 3);
        Path dev = charDevice(dir.resolve("null"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), dev);

        TreeReport report = TreeSink.of(link).writeTree(TreeSource.of(src).open()).block(T);

        assertThat(report.complete()).isTrue();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
    }

    @Test
    void aDamagedFileWrittenThroughIsReportedAsKeptThere() throws Exception {
        Path dev = charDevice(dir.resolve("null"));
        byte[] content = "some bytes that arrive damaged".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] stream = new Crafted().header(0)
                .entry(0, Crafted.FILE, Crafted.DATA_FLAG, 0644, content.length, "", "")
                .data(0, content)
                .fileEnd(0, 0, content.length, Crafted.crc(content) ^ 1, "")
                .end().bytes();

        TreeReport report = TreeSink.of(dev).writeTree(Trees.chunks(stream, 4096)).block(T);

        assertThat(report.failureLines()).containsExactly(".: its CRC32C does not match: the data arrived damaged; "
                + "what arrived before was already written through to " + dev + ", which keeps it");
        assertThat(type(dev)).isEqualTo(S_IFCHR);
    }

    @Test
    void aSymbolicLinkIsNeverPutInPlaceOfADevice() throws Exception {
        Path dev = charDevice(dir.resolve("null"));
        byte[] stream = new Crafted().header(0).symlink("", "/etc/passwd").end().bytes();

        assertThatThrownBy(() -> TreeSink.of(dev).writeTree(Trees.chunks(stream, 4096)).block(T))
                .isInstanceOf(ConnectorException.class)
                .hasMessageStartingWith("cannot write " + dev + ": a symbolic link cannot be written through a device or FIFO");
        assertThat(type(dev)).isEqualTo(S_IFCHR);
    }

    @Test
    void aSocketIsNeitherWrittenNorReplaced() throws Exception {
        Path src = file(dir.resolve("src"), 1000, 4);
        Path socket = dir.resolve("socket");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(socket));
            assertThatThrownBy(() -> TreeSink.of(socket).writeTree(TreeSource.of(src).open()).block(T))
                    .isInstanceOf(ConnectorException.class)
                    .hasMessageStartingWith("cannot write " + socket + ": it is a socket");
            assertThat(type(socket)).isEqualTo(0140000);
        }
    }

    @Test
    void theListingOfADeviceIsEmpty() throws Exception {
        // A sync lists its destination first; a device there has nothing to compare or keep.
        Path dev = charDevice(dir.resolve("null"));
        TreeListing listing = TreeListing.read(TreeListing.source(dev, false).open()).block(T);
        assertThat(listing.entries()).isEmpty();
    }

    @Test
    void insideATreeSpecialFilesAreReplacedByTheSourcesFiles() throws Exception {
        // The destination tree is the user's copy: as rsync, a file replaces what is in its way.
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("d"));
        Files.write(src.resolve("d/dev"), new byte[] {1, 2});
        Files.write(src.resolve("d/fifo"), new byte[] {3});
        Path dst = dir.resolve("dst");
        Files.createDirectories(dst.resolve("d"));
        charDevice(dst.resolve("d/dev"));
        fifo(dst.resolve("d/fifo"));

        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);

        assertThat(report.complete()).isTrue();
        assertThat(type(dst.resolve("d/dev"))).isEqualTo(S_IFREG);
        assertThat(Files.readAllBytes(dst.resolve("d/dev"))).containsExactly(1, 2);
        assertThat(type(dst.resolve("d/fifo"))).isEqualTo(S_IFREG);
        assertThat(Files.readAllBytes(dst.resolve("d/fifo"))).containsExactly(3);
    }

    // ---- helpers ---------------------------------------------------------------------------

    private static Path file(Path p, int size, long seed) throws IOException {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return Files.write(p, b);
    }

    /** Reads the FIFO to its end from another process, concurrently. */
    static CompletableFuture<byte[]> reader(Path fifo) throws IOException {
        Process cat = new ProcessBuilder("timeout", "60", "cat", fifo.toString()).start();
        return CompletableFuture.supplyAsync(() -> {
            try {
                return cat.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

}
