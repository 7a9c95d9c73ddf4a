package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.Source;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.plugin.PipelineConfig;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;

/**
 * A send sink with several destinations ({@link SendSinks}, the {@code send} sink's {@code to}):
 * one stream to real receivers over TCP loopback, each with its own session; and destinations
 * that are not there, which fail alone unless fail-fast says otherwise.
 */
class SendSinksTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final byte[] KEY = "fan-out test key".getBytes(StandardCharsets.UTF_8);
    private static final int SIZE = (5 << 20) + 321;

    @TempDir
    Path dir;

    @Test
    void aStreamToThreeReceiversArrivesIdenticalAtEach() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 7);
        List<Receiver> receivers = List.of(receiver("a"), receiver("b"), receiver("c"));

        // Compressed and encrypted: each destination encodes with its own session's keys.
        PipelineResult result = Pipeline.from(FileSource.of(in)).via(ZstdStage.spec(1), AesGcmStage.spec())
                .to(SendSinks.of(receivers.stream().map(r -> send(r.port())).toList()))
                .run().block(LIMIT);

        assertThat(result.sink().failures()).isEmpty();
        for (Receiver r : receivers) {
            assertThat(r.done().get(LIMIT.toSeconds(), TimeUnit.SECONDS).bytesIn()).isEqualTo(SIZE);
            assertThat(TestFiles.sha256(r.out())).isEqualTo(TestFiles.sha256(in));
        }
        assertThat(result.bytesIn()).isEqualTo(SIZE);
    }

    @Test
    void aDestinationNotListeningLeavesTheOthersCompleteAndIsNamed() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 8);
        Receiver first = receiver("a");
        int closed = LoopbackPipelines.closedPort();
        Receiver last = receiver("c");

        PipelineResult result = Pipeline.from(FileSource.of(in)).via(ZstdStage.spec(1))
                .to(SendSinks.of(send(first.port()), send(closed), send(last.port())))
                .run().block(LIMIT);

        assertThat(result.sink().failures()).singleElement().asString()
                .startsWith("send to 127.0.0.1:" + closed + ": ");
        assertThat(result.sink().complete()).isFalse();
        for (Receiver r : List.of(first, last)) {
            r.done().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(TestFiles.sha256(r.out())).isEqualTo(TestFiles.sha256(in));
        }
    }

    @Test
    void aReceiverThatFailsMidStreamIsNamedAndTheOthersGoOnWithoutIt() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 12);
        Receiver first = receiver("a");
        Receiver failing = receiver(LoopbackPipelines.failingAfter(3));
        Receiver last = receiver("c");

        PipelineResult result = Pipeline.from(FileSource.of(in)).via(AesGcmStage.spec())
                .to(SendSinks.of(send(first.port()), send(failing.port()), send(last.port())))
                .run().block(LIMIT);

        assertThat(result.sink().failures()).singleElement().asString()
                .startsWith("send to 127.0.0.1:" + failing.port() + ": ")
                .contains("no space left on device (a test sink)");
        for (Receiver r : List.of(first, last)) {
            r.done().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(TestFiles.sha256(r.out())).isEqualTo(TestFiles.sha256(in));
        }
    }

    @Test
    void whenEveryReceiverFailedMidStreamTheSourceIsClosed() throws Exception {
        Receiver one = receiver(LoopbackPipelines.failingAfter(2));
        Receiver two = receiver(LoopbackPipelines.failingAfter(4));
        CompletableFuture<SignalType> closed = new CompletableFuture<>();
        Source endless = new Source() {
            @Override
            public Flux<Chunk> open() {
                return Flux.<Chunk>generate(g -> g.next(Chunk.of(ByteBuffer.allocate(64 << 10), () -> { })))
                        .doFinally(closed::complete);
            }

            @Override
            public Optional<String> name() {
                return Optional.empty();
            }

            @Override
            public OptionalLong size() {
                return OptionalLong.empty();
            }

            @Override
            public String describe() {
                return "an endless test source";
            }
        };

        assertThatThrownBy(() -> Pipeline.from(endless).to(SendSinks.of(send(one.port()), send(two.port())))
                .run().block(LIMIT))
                .hasMessageContaining("no destination got the stream");
        // No one takes the stream any more: the source is cancelled, not left open and waiting.
        assertThat(closed.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
    }

    @Test
    void failFastMakesOneMissingDestinationFailTheSink() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 9);
        Receiver there = receiver("a");
        int closed = LoopbackPipelines.closedPort();

        assertThatThrownBy(() -> Pipeline.from(FileSource.of(in))
                .to(SendSinks.of(send(there.port()), send(closed)).failFast(true))
                .run().block(LIMIT))
                .isInstanceOf(RdmaFluxException.class)
                .hasMessageContaining("send to 127.0.0.1:" + closed + ": ");
        // The receiver that was there hears the sender go away instead of waiting forever.
        assertThatThrownBy(() -> there.done().get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void noDestinationReachedFailsTheSinkNamingEach() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), 1000, 10);
        int one = LoopbackPipelines.closedPort();
        int two = LoopbackPipelines.closedPort();

        Throwable alone = catchThrowable(() -> Pipeline.from(FileSource.of(in)).to(send(one)).run().block(LIMIT));

        assertThatThrownBy(() -> Pipeline.from(FileSource.of(in))
                .to(SendSinks.of(send(one), send(two)))
                .run().block(LIMIT))
                // Classified as a single send sink's failure is, so the tools exit the same way.
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(((RdmaFluxException) alone).code()))
                .hasMessageContaining("no destination got the stream")
                .hasMessageContaining("send to 127.0.0.1:" + one + ": ")
                .hasMessageContaining("send to 127.0.0.1:" + two + ": ");
    }

    @Test
    void aPipelineFileSendsToEachReceiverItsToListNames() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), SIZE, 11);
        Receiver a = receiver("a");
        Receiver b = receiver("b");
        int closed = LoopbackPipelines.closedPort();
        PipelineConfig config = PipelineConfig.parse("""
                source: {type: file, path: "%s"}
                stages: [{type: zstd}, {type: aes-256-gcm}]
                sink:
                  type: send
                  to: ["127.0.0.1:%d", "127.0.0.1:%d", "127.0.0.1:%d"]
                  transport: tcp
                  connect-timeout: 2s
                  key: "%s"
                """.formatted(in, a.port(), closed, b.port(), new String(KEY, StandardCharsets.UTF_8)),
                "p.yaml", PluginRegistry.builtins(), Map.of());

        PipelineResult result = config.toPipeline().run().block(LIMIT);

        assertThat(result.sink().failures()).singleElement().asString().startsWith("send to 127.0.0.1:" + closed + ": ");
        for (Receiver r : List.of(a, b)) {
            r.done().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(TestFiles.sha256(r.out())).isEqualTo(TestFiles.sha256(in));
        }
    }

    private static SendSink send(int port) {
        return LoopbackPipelines.sendTo(port, KEY);
    }

    private record Receiver(int port, Path out, CompletableFuture<PipelineResult> done) {
    }

    /** A real receiving pipeline on a free loopback port, writing to {@code name}.bin. */
    private Receiver receiver(String name) throws Exception {
        Path out = dir.resolve(name + ".bin");
        return receiver(out, PipelineSink.of(FileSink.of(out)));
    }

    private Receiver receiver(PipelineSink sink) throws Exception {
        return receiver(null, sink);
    }

    private Receiver receiver(Path out, PipelineSink sink) throws Exception {
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> done = LoopbackPipelines.receive(
                LoopbackPipelines.receiveSource(KEY).timeout(LIMIT), sink, bound);
        return new Receiver(bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort(), out, done);
    }
}
