package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * What a hostile sender declares or repeats: a few bytes on the wire may not buy unbounded work
 * or output. A hole costs the receiver the same whatever its length, no record takes a file
 * past its declared size, no size is larger than the destination's file system, sums of sizes
 * never wrap, and warnings are passed on up to a bound and counted beyond it.
 * The time limits below only stop a test that would otherwise never end; they measure nothing.
 */
class HostileTreeBoundsTest {

    private static final Duration HANG_GUARD = Duration.ofSeconds(30);
    private static final byte[] PAYLOAD = "pwned".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void aHoleOfAPetabyteFailsThatFileAndTheRestArrives() throws IOException {
        long huge = 1L << 50;
        Path dest = dir.resolve("dest");
        // 219 bytes: the root, a file of 2^50 bytes sent as one hole, then an ordinary file.
        byte[] stream = Crafted.tree().entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, huge, "huge", "")
                .hole(1, huge).fileEnd(1, 0, huge, 0, "").file("fine", PAYLOAD).end().bytes();
        TreeReport report = assertTimeoutPreemptively(HANG_GUARD,
                () -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 7)).block(T));
        assertThat(report.failureLines()).singleElement().asString()
                .startsWith("huge: not written: it is 1125899906842624 bytes, more than the destination's whole"
                        + " file system holds (");
        assertThat(dest.resolve("huge")).doesNotExist();
        assertThat(dest.resolve("fine")).hasBinaryContent(PAYLOAD);
        assertThat(Trees.temporaries(dest)).isEmpty();
    }

    /** The same stream from a hostile sender over the real channel (TCP on loopback): the receiver answers promptly. */
    @Test
    void aHoleOfAPetabyteOverTheChannelFailsThatFileAndTheStreamEnds() throws IOException {
        long huge = 1L << 50;
        Path dest = dir.resolve("dest");
        byte[] stream = Crafted.tree().entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, huge, "huge", "")
                .hole(1, huge).fileEnd(1, 0, huge, 0, "").file("fine", PAYLOAD).end().bytes();
        StreamMetadata metadata = TreeSource.of(Files.createDirectories(dir.resolve("any"))).metadata();
        AtomicReference<TreeReport> received = new AtomicReference<>();
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                    .handle(in -> TreeSink.of(dest).writeTree(in.receiveChunks()).doOnNext(received::set).then())
                    .bind().block(T);
            try {
                FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(TransportKind.TCP)
                        .send(metadata, s -> Flux.just(Chunk.wrap(ByteBuffer.wrap(stream)))).block(T);
            } finally {
                server.dispose();
            }
        });
        assertThat(received.get().failureLines()).singleElement().asString().startsWith("huge: not written: it is "
                + huge + " bytes");
        assertThat(dest.resolve("fine")).hasBinaryContent(PAYLOAD);
    }

    @Test
    void aTreeOfOneFileLargerThanTheFileSystemFailsAsAWhole() {
        long huge = Long.MAX_VALUE;
        Path dest = dir.resolve("one");
        byte[] stream = new Crafted().header(0).entry(0, Crafted.FILE, Crafted.DATA_FLAG, 0644, huge, "", "")
                .hole(0, huge).fileEnd(0, 0, huge, 0, "").end().bytes();
        assertThatThrownBy(() -> assertTimeoutPreemptively(HANG_GUARD,
                () -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 7)).block(T)))
                .hasMessageContaining("cannot write " + dest + ": it is " + huge + " bytes, more than");
        assertThat(dest).doesNotExist();
    }

    @Test
    void aHoleThatWouldOverflowTheFileIsRefused() {
        // 5 + (2^63 - 3) wraps to a negative number: it must still count as past the 10 bytes declared.
        refused(Crafted.tree().entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, 10, "wrap", "").data(1, PAYLOAD)
                .hole(1, Long.MAX_VALUE - 2).fileEnd(1, 0, 10, 0, "").end(), "'wrap': more data than the 10 bytes");
        refused(Crafted.tree().entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, 10, "past", "").data(1, PAYLOAD)
                .hole(1, 6).fileEnd(1, 0, 10, 0, "").end(), "'past': more data than the 10 bytes");
    }

    @Test
    void sizesThatAddUpPastTheLargestLongAreRefused() {
        // Each file is too large to write, so each is read and dropped; their sum still may not wrap.
        long half = (1L << 62) + 1;
        Crafted c = Crafted.tree();
        for (int id = 1; id <= 2; id++) {
            c.entry(id, Crafted.FILE, Crafted.DATA_FLAG, 0644, half, "f" + id, "").hole(id, half)
                    .fileEnd(id, 0, half, 0, "");
        }
        refused(c.end(), "the bytes of the files sent add up to more than " + Long.MAX_VALUE);
    }

    @Test
    void aFileWhoseLengthMakesTheSumsPassTheLargestLongIsRemoved() {
        // The file is being written (too large for the writer threads) when its FILE_END's length
        // overflows the bytes sent: the refusal must not leave what it wrote behind.
        long half = (1L << 62) + 1;
        Crafted c = Crafted.tree().entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, half, "huge", "").hole(1, half)
                .fileEnd(1, 0, half, 0, "");
        c.entry(2, Crafted.FILE, Crafted.DATA_FLAG, 0644, 70_000, "partial", "").data(2, PAYLOAD)
                .hole(2, 70_000 - PAYLOAD.length).fileEnd(2, 0, Long.MAX_VALUE, 0, "");
        refused(c.end(), "the bytes of the files sent add up to more than " + Long.MAX_VALUE);
    }

    @Test
    void aLargeSparseFileArrivesAsAHole() throws IOException {
        long gap = 4L << 30;
        byte[] head = "head".getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "tail".getBytes(StandardCharsets.US_ASCII);
        long size = head.length + gap + tail.length;
        long endsInHole = 1L << 30;
        Path dest = dir.resolve("dest");
        byte[] stream = Crafted.tree()
                .entry(1, Crafted.FILE, Crafted.DATA_FLAG, 0644, size, "disk.img", "")
                .data(1, head).hole(1, gap).data(1, tail).fileEnd(1, 0, size, crc(head, gap, tail), "")
                .entry(2, Crafted.FILE, Crafted.DATA_FLAG, 0644, 1 + endsInHole, "ends-in-hole", "")
                .data(2, new byte[] {7}).hole(2, endsInHole)
                .fileEnd(2, 0, 1 + endsInHole, crc(new byte[] {7}, endsInHole, new byte[0]), "")
                .end().bytes();
        TreeReport report = assertTimeoutPreemptively(HANG_GUARD,
                () -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 7)).block(T));
        assertThat(report.failureLines()).isEmpty();
        Path img = dest.resolve("disk.img");
        assertThat(Files.size(img)).isEqualTo(size);
        assertThat(read(img, 0, 4)).isEqualTo(head);
        assertThat(read(img, head.length + gap - 4, 8)).isEqualTo(new byte[] {0, 0, 0, 0, 't', 'a', 'i', 'l'});
        Path end = dest.resolve("ends-in-hole");
        assertThat(Files.size(end)).isEqualTo(1 + endsInHole);
        assertThat(read(end, 0, 2)).isEqualTo(new byte[] {7, 0});
        // Holes were left as holes, not written as zeros: a few blocks each.
        assertThat(allocated(img)).isLessThan(1 << 20);
        assertThat(allocated(end)).isLessThan(1 << 20);
    }

    @Test
    void aHundredThousandWarningsArePassedOnUpToTheBoundAndCounted() {
        Crafted c = Crafted.tree();
        byte[] message = "look at me".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 100_000; i++) {
            byte[] path = ("w" + i).getBytes(StandardCharsets.UTF_8);
            ByteBuffer notice = ByteBuffer.allocate(5 + 5 + path.length + message.length);
            notice.put((byte) 5).putInt(5 + path.length + message.length).put((byte) 1)
                    .putShort((short) path.length).put(path).putShort((short) message.length).put(message);
            c.raw(notice.array());
        }
        byte[] stream = c.file("fine", PAYLOAD).end().bytes();
        java.util.concurrent.atomic.AtomicInteger passedOn = new java.util.concurrent.atomic.AtomicInteger();
        TreeListener counting = new TreeListener() {
            @Override
            public void onWarning(String path, String m) {
                passedOn.incrementAndGet();
            }
        };
        Path dest = dir.resolve("dest");
        TreeReport report = TreeSink.of(dest, TreeSinkOptions.defaults().withMaxReported(250).withListener(counting))
                .writeTree(Trees.chunks(stream, 4096)).block(T);
        assertThat(passedOn).hasValue(250);
        assertThat(report.warnings()).hasSize(250).startsWith("w0: look at me").endsWith("w249: look at me");
        assertThat(report.warningCount()).isEqualTo(100_000);
        assertThat(report.warningsNotListed()).isEqualTo("... and 99750 more warnings");
        assertThat(report.complete()).isTrue();
        assertThat(dest.resolve("fine")).hasBinaryContent(PAYLOAD);
    }

    /** The CRC32C of {@code a}, {@code zeros} zero bytes and {@code b}, computed byte by byte. */
    private static int crc(byte[] a, long zeros, byte[] b) {
        CRC32C c = new CRC32C();
        c.update(a);
        ByteBuffer z = ByteBuffer.allocateDirect(1 << 20);
        for (long left = zeros; left > 0; left -= z.capacity()) {
            c.update(z.clear().limit((int) Math.min(left, z.capacity())));
        }
        c.update(b);
        return (int) c.getValue();
    }

    private static byte[] read(Path p, long at, int n) throws IOException {
        try (FileChannel ch = FileChannel.open(p)) {
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
                continue;
            }
            return b.array();
        }
    }

    /** Bytes allocated on disk, from stat's count of 512-byte blocks. */
    private static long allocated(Path p) throws IOException {
        Process stat = new ProcessBuilder("stat", "-c", "%b", p.toString()).redirectErrorStream(true).start();
        try {
            String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            assertThat(stat.waitFor()).as("stat: %s", out).isZero();
            return Long.parseLong(out) * 512;
        } catch (InterruptedException e) {
            throw new IOException(e);
        } finally {
            stat.destroy();
        }
    }

    /** Refused with a PROTOCOL error naming the reason, promptly, and no partial file left. */
    private void refused(Crafted c, String reason) {
        Path dest = dir.resolve("refused");
        byte[] stream = c.bytes();
        assertThatThrownBy(() -> assertTimeoutPreemptively(HANG_GUARD,
                () -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 3)).block(T)))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageStartingWith("refused tree stream: ")
                .hasMessageContaining(reason);
        try {
            if (Files.exists(dest)) {
                assertThat(Trees.temporaries(dest)).isEmpty();
                try (var files = Files.walk(dest)) {
                    assertThat(files.filter(Files::isRegularFile)).isEmpty();
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
