package io.rdmaflux.codec;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code rdsend --zstd --encrypt | rdrecv} will do, in one process over TCP on loopback:
 * a file read in blocks, encoded with the chain, sent through the channel, decoded by the
 * receiver (which takes the chain from the metadata) and counted. Prints plain MB/s of wall
 * time and the ratio for each run.
 *
 * <pre>
 *   java -cp codecs/target/rdma-flux-codecs-benchmarks.jar io.rdmaflux.codec.ChannelRun FILE [CHAIN] [RUNS]
 * </pre>
 */
public final class ChannelRun {

    private ChannelRun() {
    }

    public static void main(String[] args) {
        Path file = Paths.get(args[0]);
        String chainText = args.length > 1 ? args[1] : "zstd:1;level=1,aes-256-gcm:1";
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String key = "benchmark key";
        ChannelOptions options = ChannelOptions.defaults();
        TcpTransport tcp = new TcpTransport();
        for (int r = 0; r < runs; r++) {
            AtomicLong received = new AtomicLong();
            AtomicLong wire = new AtomicLong();
            AtomicLong plain = new AtomicLong();
            ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(key).transport(tcp).options(options)
                    .handle(in -> {
                        CodecChain chain = CodecChain.parse(in.metadata().codecs());
                        return chain.decode(in.receiveChunks().doOnNext(c -> wire.addAndGet(c.remaining())),
                                        CodecContext.forSession(in.session(), key))
                                .doOnNext(c -> {
                                    received.addAndGet(c.remaining());
                                    c.release();
                                }).then();
                    })
                    .bind().block(Duration.ofSeconds(10));
            CodecChain chain = CodecChain.parse(chainText).forFrameSize(options.frameSize());
            int block = chain.blockSize();
            long t0 = System.nanoTime();
            try {
                FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(key).transport(tcp)
                        .options(options)
                        .send(StreamMetadata.empty().with(StreamMetadata.CODECS, chain.format()),
                                session -> chain.encode(PipelineRun.read(file, block)
                                                .doOnNext(c -> plain.addAndGet(c.remaining())),
                                        CodecContext.forSession(session, key)))
                        .block(Duration.ofMinutes(5));
            } finally {
                server.dispose();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (received.get() != plain.get()) {
                throw new IllegalStateException("lost bytes: " + plain + " sent, " + received + " received");
            }
            System.out.printf("run %d: %s over TCP loopback, %,d bytes in %.2f s = %.0f MB/s, ratio %.3f%n", r + 1,
                    chain.isEmpty() ? "(no codecs)" : chain.format(), plain.get(), s, plain.get() / 1e6 / s,
                    (double) wire.get() / plain.get());
        }
        System.exit(0);
    }
}
