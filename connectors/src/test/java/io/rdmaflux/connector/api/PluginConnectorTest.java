package io.rdmaflux.connector.api;

import static io.rdmaflux.connector.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ChunkReader;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.WriteTarget;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * A source and a sink built the way a plugin jar builds them, from outside the connectors'
 * package, with only the public {@link Source#fromReader} and {@link Sink#toTarget}: round
 * trips over real files, cancel of a read blocked on a real pipe, failures and their wording,
 * and every buffer back in its pool afterwards.
 */
class PluginConnectorTest {

    private static final int CHUNK = 4096;

    @TempDir
    Path dir;

    /** A plugin's reader: a file read with its own channel, counting how it is closed. */
    static class FileReader implements ChunkReader {
        final FileChannel channel;
        final AtomicInteger closed;

        FileReader(Path file, AtomicInteger closed) throws IOException {
            this.channel = FileChannel.open(file, StandardOpenOption.READ);
            this.closed = closed;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return channel.read(dst);
        }

        @Override
        public void close() throws IOException {
            closed.incrementAndGet();
            channel.close();
        }
    }

    /** A plugin's output: a temporary file renamed on commit, removed on abort. */
    static final class FileTarget implements WriteTarget {
        final Path destination;
        final Path part;
        final StreamMetadata metadata;
        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger commits = new AtomicInteger();
        final AtomicInteger aborts = new AtomicInteger();
        FileChannel channel;

        FileTarget(Path destination, StreamMetadata metadata) {
            this.destination = destination;
            this.part = destination.resolveSibling(destination.getFileName() + ".part");
            this.metadata = metadata;
        }

        @Override
        public void open() throws IOException {
            channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                channel.write(src);
            }
            writes.incrementAndGet();
        }

        @Override
        public String commit() throws IOException {
            commits.incrementAndGet();
            channel.close();
            Files.move(part, destination, StandardCopyOption.ATOMIC_MOVE);
            return destination.toString();
        }

        @Override
        public String abort() {
            aborts.incrementAndGet();
            try {
                if (channel != null) {
                    channel.close();
                }
                return Files.deleteIfExists(part) ? "partial file removed" : "";
            } catch (IOException e) {
                return "partial file kept: " + e.getMessage();
            }
        }

        @Override
        public String describe() {
            return destination.toString();
        }
    }

    private static SourceOptions sourceOptions(BufferPool pool) {
        return SourceOptions.defaults().withPool(pool).withBuffers(3);
    }

    /** {@code data} in chunks leased from {@code pool}, one at a time as they are requested. */
    private static Flux<Chunk> chunks(byte[] data, BufferPool pool) {
        return Flux.range(0, (data.length + CHUNK - 1) / CHUNK).map(i -> {
            Chunk c = pool.acquire();
            c.buffer().put(data, i * CHUNK, Math.min(CHUNK, data.length - i * CHUNK)).flip();
            return c;
        });
    }

    @Test
    void aSourceAndASinkBuiltOutsideThePackageCopyFilesOfEverySize() throws IOException {
        long seed = 22;
        Random random = new Random(seed);
        List<Integer> sizes = new ArrayList<>(List.of(0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 7 * CHUNK + 3));
        for (int i = 0; i < 20; i++) {
            sizes.add(random.nextInt(20 * CHUNK));
        }
        for (int size : sizes) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            Path in = Files.write(dir.resolve("in-" + size), data);
            Path out = dir.resolve("out-" + size);
            BufferPool pool = new BufferPool("plugin source", CHUNK, 8);
            AtomicInteger closed = new AtomicInteger();
            List<FileTarget> targets = new ArrayList<>();
            Source source = Source.fromReader("s3://bucket/in-" + size, () -> new FileReader(in, closed),
                    sourceOptions(pool)).withName("in-" + size).withSize(size);
            Sink sink = Sink.toTarget("s3://bucket/out", m -> {
                FileTarget t = new FileTarget(out, m);
                targets.add(t);
                return t;
            }, SinkOptions.defaults().withPrefetch(2));

            SinkResult result = sink.write(source.open(), source.metadata()).block(Duration.ofSeconds(30));

            String what = "seed " + seed + ", size " + size;
            assertThat(Files.readAllBytes(out)).as(what).isEqualTo(data);
            assertThat(result.bytes()).as(what).isEqualTo(size);
            assertThat(result.location()).as(what).isEqualTo(out.toString());
            assertThat(targets).as(what).singleElement().satisfies(t -> {
                assertThat(t.metadata.get(StreamMetadata.NAME)).isEqualTo("in-" + size);
                assertThat(t.metadata.size()).isEqualTo(size);
                assertThat(t.commits).hasValue(1);
                assertThat(t.aborts).hasValue(0);
            });
            assertThat(source.describe()).isEqualTo("s3://bucket/in-" + size);
            assertThat(sink.describe()).isEqualTo("s3://bucket/out");
            await("reader closed, " + what, () -> closed.get() == 1);
            await("buffers back, " + what, () -> pool.outstanding() == 0);
            assertThat(closed).as(what).hasValue(1);
        }
    }

    @Test
    void cancelAbortsAReadBlockedOnAPipeClosesTheReaderAndReturnsTheBuffers() throws IOException {
        Pipe pipe = Pipe.open();
        BufferPool pool = new BufferPool("plugin source", CHUNK, 4);
        AtomicInteger closed = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        Source source = Source.fromReader("a silent pipe", () -> {
            ChunkReader in = ChunkReader.sequential(pipe.source(), null, true);
            return new ChunkReader() {
                @Override
                public int read(ByteBuffer dst) throws IOException {
                    return in.read(dst);
                }

                @Override
                public void close() throws IOException {
                    closed.incrementAndGet();
                    in.close();
                }

                @Override
                public void abort() {
                    aborted.incrementAndGet();
                    in.abort();
                }
            };
        }, sourceOptions(pool));
        ByteBuffer hello = ByteBuffer.wrap(new byte[CHUNK]);
        while (hello.hasRemaining()) {
            pipe.sink().write(hello);
        }
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        AtomicInteger chunks = new AtomicInteger();
        BaseSubscriber<Chunk> subscriber = new BaseSubscriber<>() {
            @Override
            protected void hookOnNext(Chunk c) {
                byte[] b = new byte[c.remaining()];
                c.buffer().get(b);
                received.writeBytes(b);
                c.release();
                chunks.incrementAndGet();
            }
        };
        source.open().subscribe(subscriber);
        // The first chunk arrives; the next read then waits on a pipe nobody writes to.
        await("the pipe's bytes", () -> received.size() == CHUNK);
        subscriber.dispose();

        await("the reader closed", () -> closed.get() == 1);
        await("the buffers back", () -> pool.outstanding() == 0);
        assertThat(aborted).hasValue(1);
        assertThat(pipe.source().isOpen()).isFalse();
        pipe.sink().close();
    }

    @Test
    void aSourceThatCannotOpenOrReadFailsWithOneLineNamingIt() throws IOException {
        Path missing = dir.resolve("missing");
        Throwable notFound = catchThrowable(() -> Source.fromReader("s3://bucket/missing",
                () -> new FileReader(missing, new AtomicInteger())).open().blockLast(Duration.ofSeconds(30)));
        assertThat(notFound).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot read s3://bucket/missing: no such file or directory");
        assertThat(((ConnectorException) notFound).code()).isEqualTo(ErrorCode.SOURCE_FAILED);

        // A reader that fails after its first chunk: the chunk already emitted is released by its
        // holder, the reader is closed and the rest of the buffers are back.
        Path in = Files.write(dir.resolve("in"), new byte[3 * CHUNK]);
        BufferPool pool = new BufferPool("plugin source", CHUNK, 4);
        AtomicInteger closed = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        Source failing = Source.fromReader("s3://bucket/in", () -> new FileReader(in, closed) {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                if (reads.incrementAndGet() > 1) {
                    throw new IOException("Connection reset by peer");
                }
                return super.read(dst);
            }
        }, sourceOptions(pool));
        AtomicInteger emitted = new AtomicInteger();
        Throwable reset = catchThrowable(() -> failing.open()
                .doOnNext(c -> {
                    emitted.incrementAndGet();
                    c.release();
                })
                .blockLast(Duration.ofSeconds(30)));
        assertThat(reset).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot read s3://bucket/in: Connection reset by peer");
        assertThat(((ConnectorException) reset).code()).isEqualTo(ErrorCode.SOURCE_FAILED);
        assertThat(emitted).hasValue(1);
        await("the reader closed", () -> closed.get() == 1);
        await("the buffers back", () -> pool.outstanding() == 0);
    }

    @Test
    void cancellingAWriteAbortsTheTargetAndReleasesEveryChunk() {
        BufferPool pool = new BufferPool("channel slots", CHUNK, 4);
        Path out = dir.resolve("out");
        List<FileTarget> targets = new ArrayList<>();
        Sink sink = Sink.toTarget("s3://bucket/out", m -> {
            FileTarget t = new FileTarget(out, m);
            targets.add(t);
            return t;
        });
        // Two chunks, then a stream that never ends: the write waits for more.
        Flux<Chunk> data = chunks(new byte[2 * CHUNK], pool).concatWith(Flux.never());
        Disposable write = sink.write(data).subscribe();
        await("two chunks written", () -> !targets.isEmpty() && targets.get(0).writes.get() == 2);
        write.dispose();

        FileTarget t = targets.get(0);
        await("the target aborted", () -> t.aborts.get() == 1);
        assertThat(t.commits).hasValue(0);
        assertThat(Files.exists(t.part)).isFalse();
        assertThat(Files.exists(out)).isFalse();
        await("the chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void aSinkThatCannotOpenOrWhoseDataFailsSaysWhatBecameOfTheOutput() {
        BufferPool pool = new BufferPool("channel slots", CHUNK, 4);

        // The target's output cannot be made: the sink's own failure, the data's chunks released.
        Path nowhere = dir.resolve("no-such-dir").resolve("out");
        Throwable notFound = catchThrowable(() -> Sink.toTarget("s3://bucket/out", m -> new FileTarget(nowhere, m))
                .write(chunks(new byte[3 * CHUNK], pool)).block(Duration.ofSeconds(30)));
        assertThat(notFound).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot write " + nowhere + ": no such file or directory");
        assertThat(((ConnectorException) notFound).code()).isEqualTo(ErrorCode.SINK_FAILED);
        await("the chunks released", () -> pool.outstanding() == 0);

        // The factory itself fails: named by the sink's description, as a failed open.
        Throwable refused = catchThrowable(() -> Sink.toTarget("s3://bucket/out", m -> {
            throw new IllegalStateException("bucket is read-only");
        }).write(chunks(new byte[CHUNK], pool)).block(Duration.ofSeconds(30)));
        assertThat(refused).isInstanceOf(ConnectorException.class)
                .hasMessage("cannot write s3://bucket/out: bucket is read-only");
        await("the chunks released", () -> pool.outstanding() == 0);

        // The data fails half way: its code is kept and the clean-up is told.
        Path out = dir.resolve("out");
        List<FileTarget> targets = new ArrayList<>();
        Throwable upstream = catchThrowable(() -> Sink.toTarget("s3://bucket/out", m -> {
            FileTarget t = new FileTarget(out, m);
            targets.add(t);
            return t;
        }).write(chunks(new byte[2 * CHUNK], pool).concatWith(Flux.error(
                new ConnectorException(ErrorCode.SOURCE_FAILED, ConnectorException.Reason.IO, "the sender's disk failed",
                        null)))).block(Duration.ofSeconds(30)));
        assertThat(upstream).isInstanceOf(ConnectorException.class);
        assertThat(((ConnectorException) upstream).code()).isEqualTo(ErrorCode.SOURCE_FAILED);
        assertThat(upstream.getMessage()).startsWith("the sender's disk failed").contains("partial file removed");
        assertThat(targets).singleElement().satisfies(t -> {
            assertThat(t.aborts).hasValue(1);
            assertThat(t.commits).hasValue(0);
        });
        assertThat(Files.exists(out)).isFalse();
        assertThat(Files.exists(dir.resolve("out.part"))).isFalse();
        await("the chunks released", () -> pool.outstanding() == 0);
    }
}
