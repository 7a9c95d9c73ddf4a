package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.tree.TreeListing;
import io.rdmaflux.connector.tree.TreeSource;
import io.rdmaflux.connector.tree.TreeSourceOptions;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * What a sync to many hosts syncs against ({@code rdcp --sync --to}): of the hosts' listings,
 * only the entries all of them have alike, read from real directories; a stand-in for a host
 * that sent none is left out (over real sockets).
 */
class TreeCopySourceCommonTest {

    @TempDir
    Path dir;

    @Test
    void aFileIsCommonOnlyWhereEveryHostHasItTheSame() throws IOException {
        Path a = host("a");
        Path b = host("b");
        Path c = host("c");
        Files.writeString(b.resolve("changed"), "other content");
        Files.setLastModifiedTime(b.resolve("changed"), FileTime.fromMillis(1_000_000));
        Files.delete(c.resolve("missing"));

        TreeListing common = TreeCopySource.common(List.of(listing(a), listing(b), listing(c)));

        assertThat(common.get("same")).isPresent();
        assertThat(common.get("changed")).as("changed on b").isEmpty();
        assertThat(common.get("missing")).as("missing on c").isEmpty();
    }

    /**
     * A sync to two hosts where one could not send its listing: the stand-in the coordinator
     * sends in its place (marked {@link TreeCopySource#NO_LISTING}) counts as one of the two
     * and is left out, so the host that listed still gets nothing it has current.
     */
    @Test
    void aStandInForAMissingListingIsCountedAndLeftOut() throws Exception {
        Path src = host("src");
        Path current = dir.resolve("current");
        Files.createDirectories(current);
        for (String f : List.of("same", "changed", "missing")) {
            Files.copy(src.resolve(f), current.resolve(f));
            Files.setLastModifiedTime(current.resolve(f), Files.getLastModifiedTime(src.resolve(f)));
        }
        byte[] key = "stand-in test key".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        TreeSource tree = TreeSource.of(src);
        java.util.concurrent.CompletableFuture<Integer> port = new java.util.concurrent.CompletableFuture<>();
        ReceiveMany listings = ReceiveMany.of(new ReceiveMany.ReceiveSettings("127.0.0.1", 0, key, TransportKind.TCP,
                Duration.ofSeconds(60)), 2);
        var run = Pipeline.from(TreeCopySource.of(tree).syncAgainst(listings, TreeSourceOptions.Compare.SIZE_AND_MTIME))
                .to(FileSink.of(dir.resolve("stream.bin")))
                .listener(new PipelineListener() {
                    @Override
                    public void onListening(InetSocketAddress address, List<String> transports) {
                        port.complete(address.getPort());
                    }
                })
                .run().toFuture();
        int p = port.get(60, java.util.concurrent.TimeUnit.SECONDS);
        Source listing = TreeListing.source(current, false);
        FluxSender.create().host("127.0.0.1").port(p).key(key).transport(TransportKind.TCP)
                .metadata(StreamMetadata.empty().with(TreeCopySource.NO_LISTING, "h2"))
                .send(Flux.<ByteBuffer>empty()).block(Duration.ofSeconds(60));
        FluxSender.create().host("127.0.0.1").port(p).key(key).transport(TransportKind.TCP)
                .send(listing.metadata(), session -> listing.open()).block(Duration.ofSeconds(60));

        run.get(60, java.util.concurrent.TimeUnit.SECONDS);

        // Every file is current at the one host that listed: each goes without its data.
        assertThat(Files.readString(dir.resolve("stream.bin"), java.nio.charset.StandardCharsets.ISO_8859_1))
                .contains("same").contains("changed").contains("missing").doesNotContain("content of ");
    }

    private Path host(String name) throws IOException {
        Path root = Files.createDirectories(dir.resolve(name));
        for (String f : List.of("same", "changed", "missing")) {
            Files.writeString(root.resolve(f), "content of " + f);
            Files.setLastModifiedTime(root.resolve(f), FileTime.fromMillis(2_000_000));
        }
        return root;
    }

    private static TreeListing listing(Path root) {
        return TreeListing.local(root, false).block();
    }
}
