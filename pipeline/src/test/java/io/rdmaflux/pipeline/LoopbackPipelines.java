package io.rdmaflux.pipeline;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * Real pipelines over TCP loopback for the tests of senders, fan-outs and relays: a receiving
 * pipeline that says where it listens, a send sink to it, a port nothing listens on, and a sink
 * that fails part way.
 */
final class LoopbackPipelines {

    private LoopbackPipelines() {
    }

    /** A receive source on a free loopback port, over TCP. */
    static ReceiveSource receiveSource(byte[] key) {
        return ReceiveSource.create(0, key).bind("127.0.0.1").transport(TransportKind.TCP);
    }

    /** Runs {@code source} into {@code sink}; {@code bound} gets the address it listens on. */
    static CompletableFuture<PipelineResult> receive(ReceiveSource source, PipelineSink sink,
                                                     CompletableFuture<InetSocketAddress> bound) {
        return Pipeline.from(source)
                .to(sink)
                .listener(new PipelineListener() {
                    @Override
                    public void onListening(InetSocketAddress address) {
                        bound.complete(address);
                    }
                })
                .run().toFuture();
    }

    /** A send sink to a loopback receiver on {@code port}, over TCP; a port nobody listens on fails within 2 s. */
    static SendSink sendTo(int port, byte[] key) {
        return SendSink.create("127.0.0.1", port, key).transport(TransportKind.TCP)
                .options(ChannelOptions.defaults().withConnectTimeout(Duration.ofSeconds(2)));
    }

    /** A loopback port nothing listens on. */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();   // nothing listens there once closed
        }
    }

    /** A sink that fails part way, as a disk that fills: it takes {@code chunks} chunks, then fails. */
    static PipelineSink failingAfter(int chunks) {
        return new PipelineSink() {
            @Override
            public Mono<SinkResult> write(Upstream upstream) {
                AtomicInteger seen = new AtomicInteger();
                return upstream.data(CodecContext.keyless())
                        .doOnNext(c -> {
                            c.release();
                            if (seen.incrementAndGet() == chunks) {
                                throw new IllegalStateException("no space left on device (a test sink)");
                            }
                        })
                        .then(Mono.empty());
            }

            @Override
            public String describe() {
                return "a sink that fails";
            }
        };
    }
}
