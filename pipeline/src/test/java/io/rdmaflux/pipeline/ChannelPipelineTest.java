package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** The Java API end to end, in one process over TCP loopback: pipelines on both ends of real channels. */
class ChannelPipelineTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final byte[] KEY = "pipeline test key".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void fileZstdAesSendToReceiveFile() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), (12 << 20) + 5, 7);
        Path out = dir.resolve("out.bin");
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> received = Pipeline.from(ReceiveSource.create(0, KEY)
                        .bind("127.0.0.1").transport(TransportKind.TCP).requireEncryption(true))
                .to(FileSink.of(out))
                .listener(listening(bound))
                .run().toFuture();
        int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        assertThat(port).isPositive();

        PipelineResult sent = Pipeline.from(FileSource.of(in))
                .via(ZstdStage.spec(1), AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP))
                .run().block(LIMIT);
        PipelineResult got = received.get(LIMIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(TestFiles.sha256(out)).isEqualTo(TestFiles.sha256(in));
        long size = (12 << 20) + 5;
        assertThat(sent.bytesIn()).isEqualTo(size);
        assertThat(sent.sink().location()).isEqualTo("127.0.0.1:" + port);
        assertThat(sent.steps()).extracting(StepMetrics::name)
                .containsExactly(in.toString(), "zstd:1;level=1", "aes-256-gcm:1", "send to 127.0.0.1:" + port);
        // Half the input is text: zstd shrinks it; AES adds a little per record.
        StepMetrics zstd = sent.steps().get(1);
        StepMetrics aes = sent.steps().get(2);
        assertThat(zstd.bytesOut()).isLessThan(size * 3 / 4);
        assertThat(aes.bytesIn()).isEqualTo(zstd.bytesOut());
        assertThat(aes.bytesOut()).isGreaterThan(aes.bytesIn());
        assertThat(sent.bytesOut()).isEqualTo(aes.bytesOut()).isEqualTo(sent.sink().bytes());

        // The receiver saw the wire bytes go in and the plain bytes come out.
        StepMetrics source = got.steps().get(0);
        assertThat(source.bytesIn()).isEqualTo(sent.bytesOut());
        assertThat(source.bytesOut()).isEqualTo(size);
        assertThat(got.bytesIn()).isEqualTo(size);
        assertThat(got.sink().location()).isEqualTo(out.toString());
    }

    @Test
    void framesLargerThanTheReceiversDefaultCarryTheirAnnouncedBlockSize() throws Exception {
        // 4 MiB frames make 4 MiB zstd blocks: the chain string must announce them, or the
        // receiver, holding each record to its own default block size, refuses the stream.
        Path in = TestFiles.mixed(dir.resolve("in.bin"), (9 << 20) + 3, 9);
        Path out = dir.resolve("out.bin");
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> received = Pipeline.from(ReceiveSource.create(0, KEY)
                        .bind("127.0.0.1").transport(TransportKind.TCP))
                .to(FileSink.of(out)).listener(listening(bound)).run().toFuture();
        int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        Pipeline.from(FileSource.of(in, SourceOptions.defaults().withChunkSize(4 << 20)))
                .via(ZstdStage.spec(1), AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP)
                        .options(io.rdmaflux.channel.ChannelOptions.defaults().withFrameSize(4 << 20).withReceiveSlots(4)
                                .withSendSlots(4)))
                .run().block(LIMIT);
        received.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(TestFiles.sha256(out)).isEqualTo(TestFiles.sha256(in));
    }

    @Test
    void aRelayDecodesAndReencodesPerHop() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), (3 << 20) + 77, 8);
        Path out = dir.resolve("out.bin");
        CompletableFuture<InetSocketAddress> last = new CompletableFuture<>();
        CompletableFuture<PipelineResult> end = Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1")
                        .transport(TransportKind.TCP).requireEncryption(true))
                .to(FileSink.of(out)).listener(listening(last)).run().toFuture();
        int lastPort = last.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();

        CompletableFuture<InetSocketAddress> middle = new CompletableFuture<>();
        CompletableFuture<PipelineResult> relay = Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1")
                        .transport(TransportKind.TCP))
                .via(ZstdStage.spec(3), AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", lastPort, KEY).transport(TransportKind.TCP))
                .listener(listening(middle)).run().toFuture();
        int middlePort = middle.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();

        Pipeline.from(FileSource.of(in)).via(AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", middlePort, KEY).transport(TransportKind.TCP))
                .run().block(LIMIT);
        PipelineResult hop = relay.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        end.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(TestFiles.sha256(out)).isEqualTo(TestFiles.sha256(in));
        assertThat(hop.bytesIn()).isEqualTo((3 << 20) + 77);
    }

    @Test
    void aPlainStreamIsRefusedWhenEncryptionIsRequired() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), 100_000, 9);
        Path out = dir.resolve("out.bin");
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> received = Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1")
                        .transport(TransportKind.TCP).requireEncryption(true))
                .to(FileSink.of(out)).listener(listening(bound)).run().toFuture();
        int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        StepVerifier.create(Pipeline.from(FileSource.of(in)).via(ZstdStage.spec(1))
                        .to(SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP)).run())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RdmaFluxException.class)
                        .hasMessageContaining("did not encrypt"))
                .verify(LIMIT);
        StepVerifier.create(Mono.fromFuture(received))
                .expectErrorSatisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.CODEC))
                .verify(LIMIT);
        assertThat(out).doesNotExist();
    }

    @Test
    void cancellingEitherEndMidStreamFailsTheOtherAndLeavesNoPartialFile() throws Exception {
        for (boolean cancelReceiver : new boolean[] {true, false}) {
            Path out = Files.createDirectories(dir.resolve("out-" + cancelReceiver)).resolve("out.bin");
            CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
            CompletableFuture<Throwable> receiverFailed = new CompletableFuture<>();
            Disposable receiving = Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1")
                            .transport(TransportKind.TCP))
                    .to(FileSink.of(out)).listener(listening(bound)).run()
                    .subscribe(r -> receiverFailed.complete(null), receiverFailed::complete);
            int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
            // An endless source, as a command that never ends.
            Flux<Chunk> endless = Flux.generate(sink -> sink.next(Chunk.wrap(ByteBuffer.allocate(64 << 10))));
            CompletableFuture<Throwable> senderFailed = new CompletableFuture<>();
            Disposable sending = Pipeline.from(new PipelineSource() {
                        @Override
                        public Mono<SinkResult> open(Downstream downstream) {
                            return downstream.accept(SourceStream.of(endless, StreamMetadata.empty()));
                        }

                        @Override
                        public String describe() {
                            return "endless";
                        }
                    })
                    .via(ZstdStage.spec(1), AesGcmStage.spec())
                    .to(SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP))
                    .run()
                    .subscribe(r -> senderFailed.complete(null), senderFailed::complete);
            await("the receiver writing").atMost(LIMIT).until(() -> TestFiles.count(out.getParent()) == 1);
            (cancelReceiver ? receiving : sending).dispose();
            CompletableFuture<Throwable> other = cancelReceiver ? senderFailed : receiverFailed;
            assertThat(other.get(LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("the other end fails").isInstanceOf(RdmaFluxException.class);
            await("the partial file removed").atMost(LIMIT).until(() -> TestFiles.count(out.getParent()) == 0);
            receiving.dispose();
            sending.dispose();
        }
    }

    @Test
    void noSenderWithinTheTimeout() {
        StepVerifier.create(Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1").transport(TransportKind.TCP)
                                .timeout(Duration.ofMillis(300)))
                        .to(FileSink.of(dir.resolve("out"))).run())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RdmaFluxException.class)
                        .hasMessage("no sender arrived within 300 ms"))
                .verify(LIMIT);
    }

    @Test
    void cancellingAWaitingReceiverFreesItsPort() throws Exception {
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        Disposable running = Pipeline.from(ReceiveSource.create(0, KEY).bind("127.0.0.1").transport(TransportKind.TCP))
                .to(FileSink.of(dir.resolve("out"))).listener(listening(bound)).run().subscribe();
        int port = bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
        running.dispose();
        await("port " + port + " free again").atMost(LIMIT).until(() -> canBind(port));
    }

    private static boolean canBind(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static PipelineListener listening(CompletableFuture<InetSocketAddress> bound) {
        return new PipelineListener() {
            @Override
            public void onListening(InetSocketAddress address) {
                bound.complete(address);
            }
        };
    }
}
