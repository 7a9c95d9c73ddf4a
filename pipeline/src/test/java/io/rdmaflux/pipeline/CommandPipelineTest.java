package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.connector.CommandFilter;
import io.rdmaflux.connector.CommandSource;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportKind;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Filters in pipelines, with real commands and real channels on TCP loopback. */
class CommandPipelineTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final byte[] KEY = "filter test key".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void aRelayRunsTheStreamThroughItsCommand() throws Exception {
        Path in = TestFiles.mixed(dir.resolve("in.bin"), (3 << 20) + 5, 4);
        Path out = dir.resolve("out.txt");
        CompletableFuture<InetSocketAddress> last = new CompletableFuture<>();
        CompletableFuture<PipelineResult> end = Pipeline.from(receive()).to(FileSink.of(out))
                .listener(listening(last)).run().toFuture();
        CompletableFuture<InetSocketAddress> middle = new CompletableFuture<>();
        CompletableFuture<PipelineResult> relay = Pipeline.from(receive())
                .through(CommandFilter.shell("sha256sum"), CommandFilter.shell("tr '[:lower:]' '[:upper:]'"))
                .to(send(port(last)))
                .listener(listening(middle)).run().toFuture();

        Pipeline.from(FileSource.of(in)).to(send(port(middle))).run().block(LIMIT);
        PipelineResult relayed = relay.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        end.get(LIMIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(Files.readString(out)).isEqualTo(TestFiles.sha256(in).toUpperCase() + "  -\n");
        assertThat(relayed.steps()).extracting(StepMetrics::kind).containsExactly(StepMetrics.Kind.SOURCE,
                StepMetrics.Kind.FILTER, StepMetrics.Kind.FILTER, StepMetrics.Kind.SINK);
        StepMetrics sum = relayed.steps().get(1);
        assertThat(sum.name()).isEqualTo("sha256sum");
        assertThat(sum.bytesIn()).isEqualTo(Files.size(in));
        assertThat(sum.bytesOut()).isEqualTo(68);
    }

    @Test
    void aFilterThatExitsZeroEarlyEndsTheReceivingRunAndTheSenderIsTold() throws Exception {
        Path out = dir.resolve("out.bin");
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<PipelineResult> head = Pipeline.from(receive()).through(CommandFilter.shell("head -c 1000"))
                .to(FileSink.of(out)).listener(listening(bound)).run().toFuture();

        Throwable sent = Pipeline.from(CommandSource.shell("cat /dev/zero")).to(send(port(bound)))
                .run().map(r -> (Throwable) null).onErrorResume(e -> reactor.core.publisher.Mono.just(e)).block(LIMIT);

        assertThat(head.get(LIMIT.toSeconds(), TimeUnit.SECONDS).sink().bytes()).isEqualTo(1000);
        assertThat(out).hasSize(1000);
        assertThat(sent).isInstanceOfSatisfying(RdmaFluxException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.STOPPED)).hasMessageStartingWith("receiver reported: ");
    }

    private static ReceiveSource receive() {
        return ReceiveSource.create(0, KEY).bind("127.0.0.1").transport(TransportKind.TCP);
    }

    private static SendSink send(int port) {
        return SendSink.create("127.0.0.1", port, KEY).transport(TransportKind.TCP);
    }

    private static int port(CompletableFuture<InetSocketAddress> bound) throws Exception {
        return bound.get(LIMIT.toSeconds(), TimeUnit.SECONDS).getPort();
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
