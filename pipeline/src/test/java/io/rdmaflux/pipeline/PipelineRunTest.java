package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.Codecs;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** The runner with plain sources and sinks: results, metrics, listener, errors and cancel. */
class PipelineRunTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void fileThroughZstdIntoAFileWithMetrics() throws IOException {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), (5 << 20) + 123, 1);
        Path out = dir.resolve("out.zst");
        List<PipelineMetrics> started = new ArrayList<>();
        AtomicLong reported = new AtomicLong();
        Pipeline p = Pipeline.from(FileSource.of(in))
                .via(ZstdStage.spec(3))
                .to(FileSink.of(out))
                .listener(new PipelineListener() {
                    @Override
                    public void onStart(PipelineMetrics metrics) {
                        started.add(metrics);
                    }

                    @Override
                    public void onSourceBytes(long bytes) {
                        reported.addAndGet(bytes);
                    }
                });
        assertThat(p.describe()).isEqualTo(in + " -> zstd:1;level=3 -> " + out);

        StepVerifier.create(p.run())
                .assertNext(r -> {
                    long size = (5 << 20) + 123;
                    long compressed = out.toFile().length();
                    assertThat(r.bytesIn()).isEqualTo(size);
                    assertThat(r.bytesOut()).isEqualTo(compressed).isLessThan(size * 3 / 4);
                    assertThat(r.sink()).isEqualTo(new SinkResult(compressed, out.toString()));
                    assertThat(r.steps()).containsExactly(
                            new StepMetrics(StepMetrics.Kind.SOURCE, in.toString(), size, size),
                            new StepMetrics(StepMetrics.Kind.STAGE, "zstd:1;level=3", size, compressed),
                            new StepMetrics(StepMetrics.Kind.SINK, out.toString(), compressed, compressed));
                    assertThat(r.duration()).isPositive();
                })
                .expectComplete()
                .verify(LIMIT);
        assertThat(started).hasSize(1);
        assertThat(started.get(0).expectedBytes()).hasValue((5 << 20) + 123);
        assertThat(reported.get()).isEqualTo((5 << 20) + 123);

        // What the stage wrote is zstd's record stream: decoding it gives the input back.
        Path back = dir.resolve("back.bin");
        Chunk whole = Chunk.wrap(ByteBuffer.wrap(Files.readAllBytes(out)));
        FileSink.of(back).write(Flux.just(whole).transform(Codecs.unzstd())).block(LIMIT);
        assertThat(TestFiles.sha256(back)).isEqualTo(TestFiles.sha256(in));
    }

    @Test
    void withoutStagesTheBytesArriveAsTheyAre() throws IOException {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), 3_000_001, 2);
        Path out = dir.resolve("out.bin");
        PipelineResult r = Pipeline.from(FileSource.of(in)).to(FileSink.of(out)).run().block(LIMIT);
        assertThat(r.bytesIn()).isEqualTo(3_000_001).isEqualTo(r.bytesOut());
        assertThat(r.steps()).hasSize(2);
        assertThat(TestFiles.sha256(out)).isEqualTo(TestFiles.sha256(in));
    }

    @Test
    void blockSizeFollowsTheSinkFrameAndTheChain() {
        assertThat(Pipeline.blockSize(CodecChain.empty(), 0)).isEqualTo(1 << 20);
        assertThat(Pipeline.blockSize(CodecChain.empty(), 4 << 20)).isEqualTo(4 << 20);
        CodecChain chain = CodecChain.builder().zstd(1).aesGcm().build();
        assertThat(Pipeline.blockSize(chain, 1 << 20)).isEqualTo(chain.blockSizeFor(1 << 20)).isLessThan(1 << 20);
    }

    @Test
    void aKeyedStageIsRefusedBeforeASinkWithoutSessions() throws IOException {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), 1000, 3);
        AtomicBoolean opened = new AtomicBoolean();
        PipelineSource source = new PipelineSource() {
            @Override
            public Mono<SinkResult> open(Downstream downstream) {
                opened.set(true);
                return downstream.accept(SourceStream.of(FileSource.of(in).open(), StreamMetadata.empty()));
            }

            @Override
            public String describe() {
                return "test";
            }
        };
        StepVerifier.create(Pipeline.from(source).via(AesGcmStage.spec()).to(FileSink.of(dir.resolve("out"))).run())
                .expectErrorMessage("aes-256-gcm derives its key from a channel session, so it needs a sink that sends "
                        + "over the channel (type: send), not " + dir.resolve("out"))
                .verify(LIMIT);
        assertThat(opened).isFalse();
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void aSourceThatFailsMidwayFailsTheRunAndLeavesNoPartialFile() throws IOException {
        Path out = dir.resolve("out.bin");
        Flux<Chunk> failing = Flux.range(0, 10).map(i -> Chunk.wrap(ByteBuffer.allocate(64 << 10)))
                .concatWith(Flux.error(new IllegalStateException("the producer died")));
        StepVerifier.create(Pipeline.from(stream(failing, new AtomicBoolean())).via(ZstdStage.spec(1))
                        .to(FileSink.of(out)).run())
                .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("the producer died"))
                .verify(LIMIT);
        await("the partial file removed").atMost(LIMIT).until(() -> TestFiles.count(dir) == 0);
        assertThat(out).doesNotExist();
    }

    @Test
    void cancellingStopsTheSourceAndRemovesThePartialFile() throws IOException {
        Path out = dir.resolve("out.bin");
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicInteger produced = new AtomicInteger();
        // An endless source, as a command that never ends; synchronous, as Flux.generate is.
        Flux<Chunk> endless = Flux.generate(sink -> {
            produced.incrementAndGet();
            sink.next(Chunk.wrap(ByteBuffer.allocate(64 << 10)));
        });
        StepVerifier.create(Pipeline.from(stream(endless, cancelled)).via(ZstdStage.spec(1)).to(FileSink.of(out)).run())
                .expectSubscription()
                .then(() -> await("data written").atMost(LIMIT).until(() -> produced.get() > 50 && TestFiles.count(dir) == 1))
                .thenCancel()
                .verify(LIMIT);
        await("the source cancelled").atMost(LIMIT).until(cancelled::get);
        await("the partial file removed").atMost(LIMIT).until(() -> TestFiles.count(dir) == 0);
        assertThat(out).doesNotExist();
    }

    @Test
    void aSourceAcceptsOneStream() {
        PipelineSource twice = new PipelineSource() {
            @Override
            public Mono<SinkResult> open(Downstream d) {
                return d.accept(SourceStream.of(Flux.empty(), StreamMetadata.empty()))
                        .then(d.accept(SourceStream.of(Flux.empty(), StreamMetadata.empty())));
            }

            @Override
            public String describe() {
                return "twice";
            }
        };
        StepVerifier.create(Pipeline.from(twice).to(FileSink.of(dir.resolve("o"))).run())
                .expectErrorMessage("a pipeline carries one stream; accept was called twice")
                .verify(LIMIT);
    }

    private static PipelineSource stream(Flux<Chunk> data, AtomicBoolean cancelled) {
        return new PipelineSource() {
            @Override
            public Mono<SinkResult> open(Downstream downstream) {
                return downstream.accept(SourceStream.of(data.doOnCancel(() -> cancelled.set(true)), StreamMetadata.empty()));
            }

            @Override
            public String describe() {
                return "test source";
            }
        };
    }
}
