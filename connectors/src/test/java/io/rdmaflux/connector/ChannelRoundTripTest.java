package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.list;
import static io.rdmaflux.connector.TestSupport.randomFile;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.BufferPool;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Files through the real channel: FileSource -> FluxSender -> TCP on loopback -> FluxReceiver
 * -> FileSink, compared by SHA-256. BlockHound watches that no positional file read or write
 * (pread/pwrite) happens on a Netty event loop or another non-blocking thread.
 */
@Tag("blockhound")
class ChannelRoundTripTest {

    private static final Duration T = Duration.ofSeconds(60);
    private static final String KEY = "round-trip-key";

    @TempDir
    Path dir;

    @BeforeAll
    static void blockHound() {
        BlockHoundSupport.install();
    }

    @Test
    void blockHoundIsWatching() throws IOException {
        Path file = randomFile(dir, "watched", 100, 40);
        // A scheduler of its own: the thread that trips BlockHound is thrown away afterwards.
        Scheduler nonBlocking = Schedulers.newParallel("blockhound-check", 1);
        try (FileChannel c = FileChannel.open(file)) {
            assertThatThrownBy(() -> Mono.fromCallable(() -> c.read(ByteBuffer.allocate(10), 0))
                    .subscribeOn(nonBlocking).block(T))
                    .hasRootCauseInstanceOf(BlockingOperationError.class);
        } finally {
            nonBlocking.dispose();
        }
    }

    @Test
    void fileToFileOverTcpArrivesIntactWithNameAndSize() throws IOException {
        // Not a multiple of the 1 MiB frame or chunk size.
        Path src = randomFile(dir, "src.bin", 24 * 1024 * 1024 + 12345, 41);
        Path out = Files.createDirectory(dir.resolve("out")).resolve("dst.bin");
        BufferPool pool = new BufferPool("round-trip", 1 << 20, 16);
        FileSource source = FileSource.of(src, SourceOptions.defaults().withPool(pool));

        StreamMetadata seen = transfer(source, FileSink.of(out));

        assertThat(sha256(out)).isEqualTo(sha256(src));
        assertThat(seen.get(StreamMetadata.NAME)).isEqualTo("src.bin");
        assertThat(seen.size()).isEqualTo(Files.size(src));
        assertThat(list(out.getParent())).containsExactly("dst.bin");
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void emptyAndOneByteFilesArrive() throws IOException {
        for (int size : new int[] {0, 1}) {
            Path src = randomFile(dir, "small-" + size, size, 42 + size);
            Path out = dir.resolve("small-" + size + ".out");
            transfer(FileSource.of(src), FileSink.of(out));
            assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(src));
        }
    }

    @Test
    void aSinkThatCannotWriteFailsBothSidesWithItsReason() throws IOException {
        Path src = randomFile(dir, "denied.bin", 3 * 1024 * 1024, 44);
        // The sink checks its directory when it is made: take it away after that.
        Path vanishing = Files.createDirectory(dir.resolve("vanishing"));
        Path out = vanishing.resolve("out.bin");
        FileSink sink = FileSink.of(out);
        Files.delete(vanishing);
        AtomicReference<Throwable> receiverError = new AtomicReference<>();
        assertThatThrownBy(() -> transfer(FileSource.of(src), sink, receiverError))
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED))
                .hasMessageContaining("cannot write " + out + ": no such file or directory");
        assertThat(receiverError.get()).hasMessage("cannot write " + out + ": no such file or directory; nothing was written");
    }

    @Test
    void aSourceThatFailsMidStreamLeavesNoFileOnTheReceiver() throws IOException {
        Path out = Files.createDirectory(dir.resolve("nothing")).resolve("never.bin");
        BufferPool pool = new BufferPool("failing", 1024, 4);
        ChannelSource source = ChannelSource.ofChannel("flaky device", FileSourceTest.FailingChannel::new, true)
                .withOptions(SourceOptions.defaults().withPool(pool));
        AtomicReference<Throwable> receiverError = new AtomicReference<>();
        assertThatThrownBy(() -> transfer(source, FileSink.of(out), receiverError))
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED))
                .hasMessageContaining("cannot read flaky device: Input/output error");
        await("receiver's sink finished", () -> receiverError.get() != null);
        assertThat(receiverError.get()).hasMessageContaining("partial file removed");
        assertThat(list(out.getParent())).isEmpty();
        await("source buffers returned", () -> pool.outstanding() == 0);
    }

    private static StreamMetadata transfer(Source source, Sink sink) {
        return transfer(source, sink, new AtomicReference<>());
    }

    /** Sends {@code source} to a receiver that writes {@code sink}; returns the metadata it saw. */
    private static StreamMetadata transfer(Source source, Sink sink, AtomicReference<Throwable> receiverError) {
        AtomicReference<StreamMetadata> seen = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY)
                .transport(TransportKind.TCP)
                .handle(stream -> {
                    seen.set(stream.metadata());
                    return sink.write(stream.receiveChunks(), stream.metadata())
                            .doOnError(receiverError::set)
                            .then();
                })
                .bind()
                .block(T);
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY)
                    .transport(TransportKind.TCP)
                    .send(source.metadata(), session -> source.open())
                    .then(Mono.fromSupplier(seen::get))
                    .block(T);
        } finally {
            server.dispose();
        }
        return seen.get();
    }
}
