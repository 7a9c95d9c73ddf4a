package io.rdmaflux.samples;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.tree.TreeListener;
import io.rdmaflux.connector.tree.TreeReport;
import io.rdmaflux.connector.tree.TreeSink;
import io.rdmaflux.connector.tree.TreeSinkOptions;
import io.rdmaflux.connector.tree.TreeSource;
import io.rdmaflux.connector.tree.TreeSourceOptions;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;

/**
 * A directory tree over the channel on loopback, as a Reactor service would move one: a
 * {@link TreeSource} on the sending side, a {@link TreeSink} in the receiver's handler,
 * optionally through zstd. Prints the report and the rate (files/s, GB/s) on standard error;
 * {@code scripts/bench-tree} uses it as its harness.
 *
 * <pre>
 *   java -cp ... io.rdmaflux.samples.TreeCopySample [--zstd LEVEL] [--parallel N] SRC DST
 * </pre>
 *
 * Exits 0 when every file arrived, 23 when some failed (they are listed), 1 on a failed stream.
 * {@link #copy} is the same copy as a method (the sample's test calls it).
 */
public final class TreeCopySample {

    private static final String KEY = "tree-copy-sample";
    private static final Duration T = Duration.ofHours(1);

    private TreeCopySample() {
    }

    public static void main(String[] args) {
        int zstd = 0;
        int parallel = TreeSourceOptions.defaults().parallelFiles();
        int i = 0;
        for (; i < args.length - 2; i += 2) {
            switch (args[i]) {
                case "--zstd" -> zstd = Integer.parseInt(args[i + 1]);
                case "--parallel" -> parallel = Integer.parseInt(args[i + 1]);
                default -> usage();
            }
        }
        if (args.length - i != 2) {
            usage();
        }
        System.exit(copy(Path.of(args[i]), Path.of(args[i + 1]), zstd, parallel, System.err));
    }

    /**
     * Copies the tree {@code src} to {@code dst} over a channel on loopback, through zstd at
     * {@code zstd} when it is above 0, reading up to {@code parallel} large files at once;
     * reports on {@code out}.
     *
     * @return 0 when every file arrived, 23 when some failed, 1 when the stream failed
     */
    public static int copy(Path src, Path dst, int zstd, int parallel, PrintStream out) {
        CodecChain chain = zstd > 0 ? CodecChain.builder().zstd(zstd).build() : CodecChain.empty();
        int frame = ChannelOptions.defaults().frameSize();
        int block = chain.isEmpty() ? frame : chain.blockSizeFor(frame);
        // Progress as a service would keep it: counters, updated on the I/O threads.
        AtomicLong files = new AtomicLong();
        TreeListener progress = new TreeListener() {
            @Override
            public void onDone(io.rdmaflux.connector.tree.TreeEntry entry, long bytes) {
                files.incrementAndGet();
            }
        };
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults().withParallelFiles(parallel)
                .withIo(SourceOptions.defaults().withChunkSize(block)));
        TreeSink sink = TreeSink.of(dst, TreeSinkOptions.defaults().withListener(progress));
        StreamMetadata metadata = chain.isEmpty() ? source.metadata()
                : source.metadata().with(StreamMetadata.CODECS, chain.format());
        if (!chain.isEmpty()) {
            // Load the codec's native library here rather than on the channel's event loop.
            chain.decode(chain.encode(Flux.just(Chunk.wrap(ByteBuffer.allocate(100))), CodecContext.keyless()),
                    CodecContext.keyless()).doOnNext(Chunk::release).blockLast();
        }

        AtomicReference<TreeReport> report = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY)
                .transport(TransportKind.TCP)
                .handle(in -> {
                    Flux<Chunk> data = in.receiveChunks();
                    CodecChain used = CodecChain.parse(in.metadata().codecs());
                    if (!used.isEmpty()) {
                        data = used.decode(data, CodecContext.forSession(in.session(), KEY));
                    }
                    return sink.writeTree(data).doOnNext(report::set).then();
                })
                .bind().block(T);
        long start = System.nanoTime();
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY)
                    .transport(TransportKind.TCP)
                    .send(metadata, session -> chain.isEmpty() ? source.open()
                            : chain.encode(source.open(), CodecContext.forSession(session, KEY).withBlockSize(block)))
                    .block(T);
        } catch (RuntimeException e) {
            out.println("tree copy failed: " + e.getMessage());
            return 1;
        } finally {
            server.dispose();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        TreeReport r = report.get();
        out.printf("%d files, %d directories, %d links, %d bytes in %.3f s: %.0f files/s, %.3f GB/s%n",
                r.files(), r.directories(), r.symlinks() + r.hardLinks(), r.bytes(), seconds,
                files.get() / seconds, r.bytes() / seconds / 1e9);
        r.failureLines().forEach(line -> out.println("failed: " + line));
        return r.complete() ? 0 : 23;
    }

    private static void usage() {
        System.err.println("usage: TreeCopySample [--zstd LEVEL] [--parallel N] SRC DST");
        System.exit(64);
    }
}
