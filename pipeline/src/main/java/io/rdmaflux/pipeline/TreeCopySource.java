package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.tree.TreeEntry;
import io.rdmaflux.connector.tree.TreeFailure;
import io.rdmaflux.connector.tree.TreeListener;
import io.rdmaflux.connector.tree.TreeListing;
import io.rdmaflux.connector.tree.TreeSource;
import io.rdmaflux.connector.tree.TreeSourceOptions.Compare;
import io.rdmaflux.protocol.StreamMetadata;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.publisher.Mono;

/**
 * A directory tree as a pipeline source, with what a copy tool adds around a {@link TreeSource}:
 * its totals counted first and announced to the receiving end (a progress line with an ETA
 * there), and for a sync, the destination's listing taken first from another source. Immutable.
 *
 * <pre>{@code
 * // Sync: the destination's listing arrives over a channel of its own, sent by the receiving
 * // host's pipeline  tree-listing(dest) -> send  to this receiver's port.
 * Pipeline.from(TreeCopySource.of(TreeSource.of(src))
 *                 .countFirst(true)
 *                 .syncAgainst(ReceiveSource.create(0, key), Compare.SIZE_AND_MTIME))
 *         .to(SendSink.create(host, port, key))
 *         .listener(listener)      // onListening: the listing receiver's port
 *         .run();
 * }</pre>
 *
 * <p>The listing's source reports its listening address to the pipeline's listener (and
 * nothing else: the run's progress is the tree's). The tree is walked only once the whole
 * listing has arrived and its sender has been told so.
 */
public final class TreeCopySource implements PipelineSource {

    /** Stream metadata: the number of regular files, when the source counted them first. */
    public static final String FILES = "tree-files";
    /** Stream metadata: their content bytes (those to send, in a sync), when counted first. */
    public static final String BYTES = "tree-bytes";
    /**
     * Stream metadata, on a listing stream: no listing, but a stand-in for a destination that
     * could not send one (its host not reached), naming it. With several listings (a sync to
     * many hosts) the source takes it as one of those it waits for and leaves it out of the
     * common part: that destination receives nothing of this stream, so nothing is kept for it.
     */
    public static final String NO_LISTING = "tree-no-listing";

    private final TreeSource tree;
    private final boolean count;
    private final PipelineSource listing;
    private final Compare compare;
    private final RateLimit limit;

    private TreeCopySource(TreeSource tree, boolean count, PipelineSource listing, Compare compare, RateLimit limit) {
        this.tree = tree;
        this.count = count;
        this.listing = listing;
        this.compare = compare;
        this.limit = limit;
    }

    /** The tree {@code tree} reads, sent whole. */
    public static TreeCopySource of(TreeSource tree) {
        return new TreeCopySource(Objects.requireNonNull(tree, "tree"), false, null, Compare.SIZE_AND_MTIME, null);
    }

    /**
     * Whether to walk the tree first to count its files and bytes, announced in the stream's
     * metadata as {@value #FILES} and {@value #BYTES}. Costs a walk of the tree's metadata.
     */
    public TreeCopySource countFirst(boolean count) {
        return new TreeCopySource(tree, count, listing, compare, limit);
    }

    /**
     * A sync: first read the destination's listing (a {@link TreeListing} stream, made by
     * {@link TreeListing#source}) from {@code listing}, then send every entry, with no data for
     * the files the destination already has by {@code compare}.
     */
    public TreeCopySource syncAgainst(PipelineSource listing, Compare compare) {
        return new TreeCopySource(tree, count, Objects.requireNonNull(listing, "listing"),
                Objects.requireNonNull(compare, "compare"), limit);
    }

    /** The stream paced by {@code limit} (rdcp's --bwlimit); null for none. */
    public TreeCopySource limit(RateLimit limit) {
        return new TreeCopySource(tree, count, listing, compare, limit);
    }

    /** The rate limit, or null. */
    public RateLimit limit() {
        return limit;
    }

    @Override
    public Mono<SinkResult> open(Downstream downstream) {
        return Mono.defer(() -> {
            TreeSource told = withHoles(tree, downstream.listener());
            Mono<TreeSource> source = listing == null ? Mono.just(told)
                    : readListing(downstream).map(l -> told.withOptions(told.options().withBaseline(l, compare)));
            return source.flatMap(s -> metadata(s).flatMap(m -> downstream.accept(
                    SourceStream.of(limit == null ? s.open() : limit.apply(s.open()), m))));
        });
    }

    /** The tree, its holes passed on to the pipeline's listener (progress counts them as done). */
    private static TreeSource withHoles(TreeSource s, PipelineListener to) {
        TreeListener own = s.options().listener();
        return s.withOptions(s.options().withListener(new TreeListener() {
            @Override
            public void onDone(TreeEntry entry, long bytes) {
                own.onDone(entry, bytes);
            }

            @Override
            public void onKept(TreeEntry entry) {
                own.onKept(entry);
            }

            @Override
            public void onFailure(TreeFailure failure) {
                own.onFailure(failure);
            }

            @Override
            public void onWarning(String path, String message) {
                own.onWarning(path, message);
            }

            @Override
            public void onDeleted(String path) {
                own.onDeleted(path);
            }

            @Override
            public void onHole(long bytes) {
                own.onHole(bytes);
                to.onSourceHole(bytes);
            }
        }));
    }

    private Mono<StreamMetadata> metadata(TreeSource s) {
        if (!count) {
            return Mono.just(s.metadata());
        }
        return s.totals().map(t -> s.metadata().with(FILES, Long.toString(t.files())).with(BYTES, Long.toString(t.bytes())));
    }

    /** Runs the listing's source into a sink that reads it; only its listening address is passed on. */
    private Mono<TreeListing> readListing(Downstream downstream) {
        // Several listings (a ReceiveMany: a sync to many hosts) are read as one, their common part.
        List<TreeListing> read = new CopyOnWriteArrayList<>();
        PipelineSink sink = new PipelineSink() {
            @Override
            public Mono<SinkResult> write(Upstream upstream) {
                String absent = upstream.metadata().get(NO_LISTING);
                if (absent != null) {
                    return upstream.data(CodecContext.keyless()).doOnNext(Chunk::release)
                            .then(Mono.fromSupplier(() -> new SinkResult(0, "no listing from " + absent)));
                }
                return TreeListing.read(upstream.data(CodecContext.keyless()))
                        .doOnNext(read::add)
                        .map(l -> new SinkResult(0, "the destination's listing (" + l.size() + " entries)"));
            }

            @Override
            public String describe() {
                return "the destination's listing";
            }
        };
        PipelineListener outer = downstream.listener();
        PipelineListener onlyListening = new PipelineListener() {
            @Override
            public void onListening(InetSocketAddress address, List<String> transports) {
                outer.onListening(address, transports);
            }
        };
        Downstream into = new Downstream(List.of(), CodecChain.empty(), Pipeline.DEFAULT_FRAME, downstream.codecs(), sink,
                onlyListening, new PipelineMetrics(listing.describe(), List.of(), List.of(), sink.describe()), null);
        return listing.open(into).then(Mono.fromSupplier(() -> read.size() == 1 ? read.get(0)
                : read.isEmpty() ? TreeListing.of(List.of()) : common(read)));
    }

    /**
     * What every listing has alike: an entry is kept only when each listing has it the same
     * (kind, mode, size, mtime, link, checksum), so that a file is sent without data only when
     * no destination lacks it or has it changed. The others' data then reaches every host.
     */
    static TreeListing common(List<TreeListing> listings) {
        List<TreeEntry> same = new ArrayList<>();
        for (TreeEntry e : listings.get(0).entries()) {
            boolean everywhere = true;
            for (int i = 1; i < listings.size() && everywhere; i++) {
                everywhere = listings.get(i).get(e.path()).map(e::equals).orElse(false);
            }
            if (everywhere) {
                same.add(e);
            }
        }
        return TreeListing.of(same);
    }

    @Override
    public String describe() {
        return tree.describe();
    }

    @Override
    public String toString() {
        return "TreeCopySource[" + tree.describe() + (listing != null ? ", sync against " + listing.describe() : "")
                + "]";
    }
}
