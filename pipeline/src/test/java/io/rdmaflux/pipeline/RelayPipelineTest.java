package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.transport.TransportKind;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay ({@link ReceiveSource#forward}): a chain of three pipelines over TCP loopback, the
 * middle one writing the stream and sending it on; and each of its sides going on when the
 * other fails.
 */
class RelayPipelineTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final byte[] KEY = "relay test key".getBytes(StandardCharsets.UTF_8);
    private static final int SIZE = (5 << 20) + 123;

    @TempDir
    Path dir;

    @Test
    void theMiddleHostWritesWhatItForwardsAndTheLastGetsTheSameBytes() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 3);
        Path last = dir.resolve("last.bin");
        Path middle = dir.resolve("middle.bin");
        CompletableFuture<InetSocketAddress> lastBound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> lastDone = receive(null, last, lastBound);
        int lastPort = lastBound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        CompletableFuture<InetSocketAddress> middleBound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> middleDone = receive(next(lastPort), middle, middleBound);
        int middlePort = middleBound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();

        // Compressed and encrypted: the relay decodes (verifies) and encodes again for its own session.
        Pipeline.from(FileSource.of(in)).via(ZstdStage.spec(1), AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", middlePort, KEY).transport(TransportKind.TCP))
                .run().block(LIMIT);
        assertThat(middleDone.get(LIMIT.toSeconds(), TimeUnit.SECONDS).bytesIn()).isEqualTo(SIZE);
        lastDone.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(TestFiles.sha256(middle)).isEqualTo(TestFiles.sha256(in));
        assertThat(TestFiles.sha256(last)).isEqualTo(TestFiles.sha256(in));
    }

    @Test
    void aNextHostThatIsNotThereLeavesTheRelaysOwnCopyWhole() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 4);
        Path middle = dir.resolve("middle.bin");
        int closed = LoopbackPipelines.closedPort();
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> middleDone = receive(next(closed), middle, bound);
        int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        Pipeline.from(FileSource.of(in))
                .to(SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP))
                .run().block(LIMIT);
        middleDone.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(TestFiles.sha256(middle)).isEqualTo(TestFiles.sha256(in));
    }

    @Test
    void aRelayWhoseOwnSinkFailsStillForwardsTheWholeStream() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 5);
        Path last = dir.resolve("last.bin");
        CompletableFuture<InetSocketAddress> lastBound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> lastDone = receive(null, last, lastBound);
        int lastPort = lastBound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        CompletableFuture<InetSocketAddress> middleBound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> middleDone = receive(next(lastPort), LoopbackPipelines.failingAfter(3),
                middleBound);
        int middlePort = middleBound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();

        // The sender hears that its receiver failed; the stream still reached the last host.
        assertThatThrownBy(() -> Pipeline.from(FileSource.of(in))
                .to(SendSink.create("127.0.0.1", middlePort, KEY).transport(TransportKind.TCP))
                .run().block(LIMIT)).isNotNull();
        assertThatThrownBy(() -> middleDone.get(LIMIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
        lastDone.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(TestFiles.sha256(last)).isEqualTo(TestFiles.sha256(in));
    }

    private static SendSink next(int port) {
        return LoopbackPipelines.sendTo(port, KEY);
    }

    private static CompletableFuture<PipelineResult> receive(SendSink forward, Path out,
                                                             CompletableFuture<InetSocketAddress> bound) {
        return receive(forward, PipelineSink.of(FileSink.of(out)), bound);
    }

    /** A receiving pipeline into {@code sink}; a relay when {@code forward} is not null. */
    private static CompletableFuture<PipelineResult> receive(SendSink forward, PipelineSink sink,
                                                             CompletableFuture<InetSocketAddress> bound) {
        ReceiveSource source = LoopbackPipelines.receiveSource(KEY);
        return LoopbackPipelines.receive(forward == null ? source : source.forward(forward), sink, bound);
    }
}
