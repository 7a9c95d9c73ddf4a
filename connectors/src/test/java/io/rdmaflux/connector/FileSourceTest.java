package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.collect;
import static io.rdmaflux.connector.TestSupport.randomBytes;
import static io.rdmaflux.connector.TestSupport.randomFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class FileSourceTest {

    private static final Duration T = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void readsAWholeFileInPositionalChunksAndReportsNameAndSize() throws IOException {
        byte[] data = randomBytes(3 * 65536 + 17, 1);
        Path file = Files.write(dir.resolve("data.bin"), data);
        BufferPool pool = new BufferPool("test", 65536, 4);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withPool(pool));

        assertThat(source.size()).hasValue(data.length);
        assertThat(source.name()).hasValue("data.bin");
        assertThat(source.metadata().size()).isEqualTo(data.length);
        assertThat(source.metadata().get(StreamMetadata.NAME)).isEqualTo("data.bin");

        List<Integer> sizes = new CopyOnWriteArrayList<>();
        byte[] read = collect(source.open().doOnNext(c -> sizes.add(c.remaining())));
        assertThat(read).isEqualTo(data);
        assertThat(sizes).containsExactly(65536, 65536, 65536, 17);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void emptyFileCompletesWithoutChunks() throws IOException {
        Path file = Files.createFile(dir.resolve("empty"));
        FileSource source = FileSource.of(file);
        assertThat(source.size()).hasValue(0);
        StepVerifier.create(source.open()).expectComplete().verify(T);
    }

    @Test
    void eachSubscriptionReadsTheFileAgain() throws IOException {
        byte[] data = randomBytes(100_000, 2);
        FileSource source = FileSource.of(Files.write(dir.resolve("twice"), data),
                SourceOptions.defaults().withChunkSize(4096));
        assertThat(collect(source.open())).isEqualTo(data);
        assertThat(collect(source.open())).isEqualTo(data);
    }

    @Test
    void missingFileIsAOneLineSourceFailure() {
        Path missing = dir.resolve("nope.bin");
        assertThatThrownBy(() -> FileSource.of(missing))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.reason()).isEqualTo(ConnectorException.Reason.NOT_FOUND);
                })
                .hasMessage("cannot read " + missing + ": no such file or directory");
    }

    @Test
    void directoryIsRefused() {
        assertThatThrownBy(() -> FileSource.of(dir))
                .isInstanceOfSatisfying(ConnectorException.class,
                        e -> assertThat(e.reason()).isEqualTo(ConnectorException.Reason.NOT_A_FILE))
                .hasMessage("cannot read " + dir + ": is a directory");
    }

    @Test
    void fileDeletedBeforeReadingFailsTheFluxWithAClearMessage() throws IOException {
        Path file = randomFile(dir, "gone", 10, 3);
        FileSource source = FileSource.of(file);
        Files.delete(file);
        StepVerifier.create(source.open())
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(ConnectorException.class)
                        .hasMessage("cannot read " + file + ": no such file or directory"))
                .verify(T);
    }

    /**
     * Reads the first chunk of {@code file}, lets {@code change} alter the file, reads on, and
     * returns how the Flux ended.
     */
    private Throwable readChangedMidway(Path file, IoAction change) {
        FileSource source = FileSource.of(file, SourceOptions.defaults().withChunkSize(64 * 1024));
        List<Throwable> failed = new CopyOnWriteArrayList<>();
        StepVerifier.create(source.open().doOnNext(Chunk::release), 1)
                .expectNextCount(1)
                .then(() -> {
                    try {
                        change.run();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .thenRequest(Long.MAX_VALUE)
                .thenConsumeWhile(c -> true)
                .expectErrorSatisfies(failed::add)
                .verify(T);
        return failed.get(0);
    }

    private interface IoAction {
        void run() throws IOException;
    }

    @Test
    void aFileTruncatedWhileItIsReadFailsInsteadOfEndingShort() throws IOException {
        Path file = randomFile(dir, "shrinks", 1 << 20, 21);
        Throwable e = readChangedMidway(file, () -> {
            try (var c = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                c.truncate(100_000);
            }
        });
        assertThat(e).isInstanceOfSatisfying(ConnectorException.class,
                        ce -> assertThat(ce.code()).isEqualTo(ErrorCode.SOURCE_FAILED))
                .hasMessage("cannot read " + file + ": the file shrank while it was sent (1048576 bytes announced, "
                        + "it ended after 100000)");
    }

    @Test
    void aFileThatGrowsWhileItIsReadFails() throws IOException {
        Path file = randomFile(dir, "grows", 1 << 20, 22);
        Throwable e = readChangedMidway(file, () -> Files.write(file, new byte[10], java.nio.file.StandardOpenOption.APPEND));
        assertThat(e).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot read " + file + ": the file changed while it was sent (its size went from 1048576 "
                        + "to 1048586 bytes)");
    }

    @Test
    void aFileWrittenToWhileItIsReadFails() throws IOException {
        Path file = randomFile(dir, "written", 1 << 20, 23);
        // An old time, so that the write below changes it even on a coarse clock.
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(0));
        Throwable e = readChangedMidway(file, () -> {
            try (var c = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                c.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 500_000);
            }
        });
        assertThat(e).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot read " + file + ": the file changed while it was sent (it was written to)");
    }

    @Test
    void aFileReplacedWhileItIsReadFails() throws IOException {
        Path file = randomFile(dir, "replaced", 1 << 20, 24);
        Path other = randomFile(dir, "other", 1 << 20, 25);
        Throwable e = readChangedMidway(file, () -> Files.move(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
        assertThat(e).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot read " + file + ": the file changed while it was sent (another file took its name)");
    }

    @Test
    void madeUpFilesOfProcAreReadToTheirEndWithNoSize() {
        Path status = Path.of("/proc/self/status");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(status), "no /proc here");
        FileSource source = FileSource.of(status);
        assertThat(source.size()).isEmpty();
        assertThat(new String(collect(source.open()), java.nio.charset.StandardCharsets.UTF_8)).contains("Pid:");
    }

    @Test
    void neverHoldsMoreThanItsBuffersAndResumesWhenOneIsReleased() throws IOException {
        Path file = randomFile(dir, "big", 64 * 1024, 4);
        BufferPool pool = new BufferPool("bounded", 1024, 3);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withPool(pool));
        List<Chunk> held = new CopyOnWriteArrayList<>();

        StepVerifier.create(source.open(), 10)
                .recordWith(() -> held)
                .expectNextCount(3)
                // Demand is 10 but only 3 buffers exist: the source waits, it does not fail.
                .expectNoEvent(Duration.ofMillis(200))
                .then(() -> held.get(0).release())
                .expectNextCount(1)
                .thenCancel()
                .verify(T);
        held.subList(1, held.size()).forEach(Chunk::release);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void eachRequestWakesTheReaderEvenWhenNoBufferIsOut() throws IOException {
        // Regression: with Flux.push, onRequest fires once, so a request arriving after every
        // chunk had been released was never seen and the stream stalled.
        Path file = randomFile(dir, "one-by-one", 3 * 1024 + 1, 9);
        BufferPool pool = new BufferPool("one-by-one", 1024, 4);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withPool(pool));
        StepVerifier.create(source.open().doOnNext(Chunk::release), 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .thenRequest(1).expectNextCount(1)
                .thenAwait(Duration.ofMillis(50))
                .thenRequest(1).expectNextCount(1)
                .thenAwait(Duration.ofMillis(50))
                .thenRequest(1).expectNextCount(1)
                .thenAwait(Duration.ofMillis(50))
                .thenRequest(2).expectNextCount(1)
                .expectComplete()
                .verify(T);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void readsAndEmitsOnTheIoSchedulerNotTheRequestingThread() throws IOException {
        Path file = randomFile(dir, "threads", 10 * 4096, 5);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withChunkSize(4096));
        List<String> threads = new CopyOnWriteArrayList<>();
        collect(source.open().doOnNext(c -> threads.add(Thread.currentThread().getName()))
                .subscribeOn(Schedulers.parallel()));
        assertThat(threads).isNotEmpty().allMatch(n -> n.startsWith("boundedElastic"));
    }

    @Test
    void cancelMidStreamReturnsEveryBuffer() throws IOException {
        Path file = randomFile(dir, "cancel", 256 * 1024, 6);
        BufferPool pool = new BufferPool("cancel", 4096, 8);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withPool(pool));
        StepVerifier.create(source.open().doOnNext(Chunk::release).take(5))
                .expectNextCount(5)
                .expectComplete().verify(T);
        await("pool drained after cancel", () -> pool.outstanding() == 0);
    }

    @Test
    void specialFilesAreReadSequentiallyAndCancelReturnsBuffers() {
        BufferPool pool = new BufferPool("zero", 8192, 4);
        FileSource source = FileSource.of(Path.of("/dev/zero"), SourceOptions.defaults().withPool(pool));
        assertThat(source.size()).isEmpty();
        byte[] got = collect(source.open().take(10));
        assertThat(got).hasSize(10 * 8192).containsOnly(0);
        await("pool drained after cancel", () -> pool.outstanding() == 0);
    }

    @Test
    void streamSourceFillsChunksFromAnInputStream() {
        byte[] data = randomBytes(50_000, 7);
        ChannelSource source = ChannelSource.ofStream("bytes", () -> new ByteArrayInputStream(data), true)
                .withOptions(SourceOptions.defaults().withChunkSize(16384));
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        assertThat(collect(source.open().doOnNext(c -> sizes.add(c.remaining())))).isEqualTo(data);
        assertThat(sizes).containsExactly(16384, 16384, 16384, 50_000 - 3 * 16384);
    }

    @Test
    void readErrorMidStreamFailsWithSourceFailedAndLeaksNothing() {
        BufferPool pool = new BufferPool("error", 1024, 4);
        ChannelSource source = ChannelSource.ofChannel("flaky device", FailingChannel::new, true)
                .withOptions(SourceOptions.defaults().withPool(pool));
        List<Chunk> got = new CopyOnWriteArrayList<>();
        StepVerifier.create(source.open())
                .recordWith(() -> got)
                .expectNextCount(2)
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOfSatisfying(ConnectorException.class,
                                ce -> assertThat(ce.code()).isEqualTo(ErrorCode.SOURCE_FAILED))
                        .hasMessage("cannot read flaky device: Input/output error"))
                .verify(T);
        got.forEach(Chunk::release);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void consumerThatGivesUpCancelsTheSourceAndBuffersComeBack() throws IOException {
        Path file = randomFile(dir, "consumer-error", 64 * 1024, 8);
        BufferPool pool = new BufferPool("consumer-error", 4096, 4);
        FileSource source = FileSource.of(file, SourceOptions.defaults().withPool(pool));
        // Consumes as the channel does: a chunk that arrives after cancel (emitted while the
        // cancel was on its way) is still the consumer's to release.
        source.open().subscribe(new BaseSubscriber<Chunk>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(3);
            }

            @Override
            protected void hookOnNext(Chunk chunk) {
                chunk.release();
                cancel();
            }
        });
        await("pool drained after the consumer gave up", () -> pool.outstanding() == 0);
    }

    /** Two good reads of 1024 bytes, then EIO. */
    static final class FailingChannel implements ReadableByteChannel {
        private int reads;
        private boolean open = true;

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (reads++ >= 2) {
                throw new IOException("Input/output error");
            }
            int n = dst.remaining();
            dst.position(dst.limit());
            return n;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
