package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.InboundStream;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.Session;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.BlockHoundSupport;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.TestSupport;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Trees over the real channel: TreeSource -> FluxSender -> TCP on loopback (port 0) ->
 * FluxReceiver -> TreeSink, plain and through zstd, and a whole sync (the listing travels back
 * over a channel of its own). BlockHound watches that no file I/O runs on a non-blocking thread.
 */
@Tag("blockhound")
class TreeChannelTest {

    private static final String KEY = "tree-key";

    @TempDir
    Path dir;

    @BeforeAll
    static void blockHound() {
        BlockHoundSupport.install();
    }

    @Test
    void aTreeCrossesTheChannel() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 1000, 3 << 20, 11);
        Path dst = dir.resolve("dst");
        BufferPool pool = new BufferPool("tree over tcp", 1 << 20, 16);
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults().withLargeFileSize(1 << 20)
                .withIo(SourceOptions.defaults().withPool(pool)));

        TreeReport report = send(source, s -> source.open(), in -> TreeSink.of(dst).writeTree(in.receiveChunks()));

        assertThat(report.failureLines()).isEmpty();
        Trees.assertSameTree(dst, src);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void aTreeCrossesTheChannelThroughZstd() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 800, 2 << 20, 12);
        Path dst = dir.resolve("dst");
        CodecChain chain = CodecChain.builder().zstd(1).build();
        // The first use of zstd loads its native library out of its jar: not on an event loop.
        TestSupport.collect(CodecChain.parse(chain.format()).decode(chain.encode(
                Flux.just(Chunk.wrap(java.nio.ByteBuffer.allocate(100))), CodecContext.keyless()), CodecContext.keyless()));
        int block = chain.blockSizeFor(ChannelOptions.defaults().frameSize());
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults().withLargeFileSize(1 << 20)
                .withIo(SourceOptions.defaults().withChunkSize(block)));
        StreamMetadata metadata = source.metadata().with(StreamMetadata.CODECS, chain.format());

        TreeReport report = send(metadata,
                s -> chain.encode(source.open(), CodecContext.forSession(s, KEY).withBlockSize(block)),
                in -> TreeSink.of(dst).writeTree(CodecChain.parse(in.metadata().codecs())
                        .decode(in.receiveChunks(), CodecContext.forSession(in.session(), KEY))));

        assertThat(report.failureLines()).isEmpty();
        Trees.assertSameTree(dst, src);
    }

    @Test
    void aSyncSendsOnlyWhatChangedAndDeletesWhatIsGone() throws IOException {
        Path src = Trees.varied(dir.resolve("src"), 300, 0, 13);
        Path dst = dir.resolve("dst");
        send(TreeSource.of(src), s -> TreeSource.of(src).open(), in -> TreeSink.of(dst).writeTree(in.receiveChunks()));
        Files.write(src.resolve("node_modules/pkg3/f3.js"), new byte[] {1, 2, 3});
        Files.write(src.resolve("new file"), new byte[] {4});
        Files.delete(src.resolve("empty"));
        Files.write(dst.resolve("only at the destination"), new byte[] {5});

        // The receiving host lists its side and sends the listing back.
        Source listingSource = TreeListing.source(dst, false);
        TreeListing there = send(listingSource, s -> listingSource.open(), in -> TreeListing.read(in.receiveChunks()));
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME));
        java.util.Set<String> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
        TreeListener listener = new TreeListener() {
            @Override
            public void onDone(TreeEntry entry, long bytes) {
                if (entry.kind() == TreeEntry.Kind.FILE && bytes > 0) {
                    written.add(entry.path());
                }
            }
        };
        TreeReport report = send(source, s -> source.open(), in -> TreeSink.of(dst, TreeSinkOptions.defaults()
                .withDelete(true).withListener(listener)).writeTree(in.receiveChunks()));

        assertThat(report.failureLines()).isEmpty();
        Trees.assertSameTree(dst, src);
        assertThat(written).containsExactlyInAnyOrder("node_modules/pkg3/f3.js", "new file");
        assertThat(report.files()).isEqualTo(2);
        assertThat(report.bytes()).isEqualTo(4);
        assertThat(report.unchanged()).isEqualTo(300 + 7 - 2);   // all files but the changed and the deleted one
        assertThat(report.deleted()).isEqualTo(2);
    }

    private static <T> T send(Source source, Function<Session, Flux<Chunk>> body,
                              Function<InboundStream, Mono<T>> receiver) {
        return send(source.metadata(), body, receiver);
    }

    /** Sends one stream to a receiver on 127.0.0.1, port 0; returns what the receiving side made of it. */
    private static <T> T send(StreamMetadata metadata, Function<Session, Flux<Chunk>> body,
                              Function<InboundStream, Mono<T>> receiver) {
        AtomicReference<T> result = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(TransportKind.TCP)
                .handle(in -> receiver.apply(in).doOnNext(result::set).then())
                .bind().block(T);
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY)
                    .transport(TransportKind.TCP).send(metadata, body).block(T);
        } catch (IllegalStateException timeout) {
            // A stream that never ended (seen once in CI, never here): say where every thread was.
            printThreads();
            throw timeout;
        } finally {
            server.dispose();
        }
        return result.get();
    }

    private static void printThreads() {
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            System.err.println("thread \"" + thread.getName() + "\" " + thread.getState());
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                System.err.println("    at " + stack[i]);
            }
        });
    }
}
