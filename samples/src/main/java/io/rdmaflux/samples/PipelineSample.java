package io.rdmaflux.samples;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.pipeline.StepMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.function.Tuple2;

/**
 * Two pipelines, as a Reactor service would run them: one receives on a port it picks itself
 * and writes a file; the other reads a file, compresses and encrypts it, and sends it there.
 * Both are {@code Mono}s: composed with {@code zip}, bounded with {@code timeout} (which
 * cancels both, removing any partial output), and their results carry per-step metrics.
 *
 * <pre>
 *   java -cp samples/target/classes:... io.rdmaflux.samples.PipelineSample [FILE]
 * </pre>
 */
public final class PipelineSample {

    private PipelineSample() {
    }

    public static void main(String[] args) throws IOException {
        Path in = args.length > 0 ? Path.of(args[0]) : text(Files.createTempFile("pipeline-sample", ".txt"), 64 << 20);
        Path out = Files.createTempFile("pipeline-sample", ".out");
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);

        // The receiver picks a free port (0) and tells it through the listener.
        Sinks.One<Integer> port = Sinks.one();
        Mono<PipelineResult> receiving = Pipeline.from(ReceiveSource.create(0, key).bind("127.0.0.1")
                        .requireEncryption(true))
                .to(FileSink.of(out))
                .listener(new PipelineListener() {
                    @Override
                    public void onListening(InetSocketAddress address) {
                        port.tryEmitValue(address.getPort());
                    }
                })
                .run();

        // The sender: stages run inside the channel, per session, and are announced to the receiver.
        Mono<PipelineResult> sending = port.asMono().flatMap(p -> Pipeline.from(FileSource.of(in))
                .via(ZstdStage.spec(1), AesGcmStage.spec())
                .to(SendSink.create("127.0.0.1", p, key))
                .run());

        Tuple2<PipelineResult, PipelineResult> results = Mono.zip(receiving, sending)
                .timeout(Duration.ofMinutes(5))
                .block();

        print("sent", results.getT2());
        print("received", results.getT1());
        System.out.println("identical: " + (Files.mismatch(in, out) == -1));
        Files.delete(out);
    }

    private static void print(String what, PipelineResult r) {
        System.out.printf("%s %,d bytes in %.2f s (%.0f MB/s)%n", what, r.bytesIn(), r.duration().toNanos() / 1e9,
                r.bytesPerSecond() / 1e6);
        for (StepMetrics s : r.steps()) {
            System.out.printf("  %-6s %-40s %,15d in %,15d out (ratio %.3f)%n", s.kind(), s.name(), s.bytesIn(),
                    s.bytesOut(), s.ratio());
        }
    }

    /** Repetitive text: compresses, so the zstd step shows a ratio. */
    private static Path text(Path file, long size) throws IOException {
        try (OutputStream o = Files.newOutputStream(file)) {
            long written = 0;
            for (long i = 0; written < size; i++) {
                byte[] line = ("line " + i + ": the quick brown fox jumps over the lazy dog\n").getBytes();
                o.write(line);
                written += line.length;
            }
        }
        file.toFile().deleteOnExit();
        return file;
    }
}
