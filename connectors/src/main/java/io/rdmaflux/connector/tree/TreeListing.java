package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.TreeFormat.malformed;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * What a tree holds, entry by entry (path, kind, mode, size, mtime, link target, and with
 * checksums each file's SHA-256): the destination's side of a sync.
 *
 * <p>A sync runs in three steps. The receiving host lists its destination and sends the
 * listing back ({@link #source}, a tree stream with no contents); the sending host reads it
 * ({@link #read}) and sends the tree against it
 * ({@link TreeSourceOptions#withBaseline}): every entry is still listed, but files the
 * destination already has carry no data; the receiving {@link TreeSink} keeps those, writes
 * the rest and, with {@link TreeSinkOptions#delete()}, removes what the source does not list,
 * unless anything failed.
 *
 * <pre>{@code
 * // receiving host: send the listing back
 * Source listing = TreeListing.source(dest, false);
 * // sending host
 * TreeListing there = TreeListing.read(stream.receiveChunks()).block();
 * TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
 *         .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME));
 * }</pre>
 *
 * <p><b>Memory.</b> A listing holds every entry, packed: each directory's entries as records of
 * name bytes and fixed fields in shared byte blocks ({@value #ENTRY_BYTES} bytes and the name's,
 * and the link's and checksum's, per entry), found by binary search on their names; a
 * directory's path is kept once. {@link TreeEntry} objects are made only when asked for. A
 * million entries with 10-byte names take about 46 MB (as a map of entries they took 150 MB,
 * more than the tools' default heap). {@link #read} refuses a listing that needs more than a
 * byte budget, by default a third of the heap ({@link #defaultMaxBytes()}).
 */
public final class TreeListing {

    /** The bytes an entry costs besides its name, link and checksum: its record's fixed fields and index. */
    public static final int ENTRY_BYTES = 36;
    /** The bytes a directory holding entries costs besides its path: its index, map entry and key. */
    static final int DIRECTORY_BYTES = 160;

    private final ListingStore store;
    private final List<String> problems;
    private volatile Boolean hasParts;

    private TreeListing(ListingStore store, List<String> problems) {
        this.store = store;
        this.problems = List.copyOf(problems);
    }

    /**
     * The most bytes {@link #read(Publisher)} lets a listing hold: a third of the heap
     * ({@code -Xmx}; 64 MiB at the launchers' default 192 MiB), at most 1.5 GiB.
     */
    public static long defaultMaxBytes() {
        return Math.min(Runtime.getRuntime().maxMemory() / 3, ListingStore.MAX_BYTES);
    }

    /**
     * A listing of these entries.
     *
     * @throws IllegalArgumentException when a path is given twice
     */
    public static TreeListing of(Collection<TreeEntry> entries) {
        ListingStore store = new ListingStore(ListingStore.MAX_BYTES);
        for (TreeEntry e : entries) {
            store.add(e);
        }
        String twice = store.seal();
        if (twice != null) {
            throw new IllegalArgumentException("'" + twice + "' is listed twice");
        }
        return new TreeListing(store, List.of());
    }

    /**
     * The entries of the tree at {@code root} in the stream's order (a directory before its
     * entries), walked on {@code boundedElastic} as they are requested; empty when
     * {@code root} does not exist. Entries that cannot be read are left out. Links inside the
     * tree are not followed.
     *
     * @param checksums whether each file's SHA-256 is computed (reads every file)
     */
    public static Flux<TreeEntry> scan(Path root, boolean checksums) {
        return scan(root, checksums, Schedulers.boundedElastic());
    }

    /** {@link #scan(Path, boolean)} on {@code scheduler}. */
    public static Flux<TreeEntry> scan(Path root, boolean checksums, Scheduler scheduler) {
        return Flux.defer(() -> Files.exists(root) ? walk(() -> new TreeWalker(root, false), root, checksums)
                : Flux.<TreeEntry>empty()).subscribeOn(scheduler);
    }

    /** The entries of {@code start}'s walk, read as {@link #scan} reads them, on the caller's thread. */
    private static Flux<TreeEntry> walk(Callable<TreeWalker> start, Path root, boolean checksums) {
        return Flux.<TreeEntry, TreeWalker>generate(start, (walker, sink) -> {
            try {
                for (;;) {
                    TreeWalker.Item item = walker.peek();
                    if (item == null) {
                        sink.complete();
                        return walker;
                    }
                    walker.advance();
                    if (!item.isNotice()) {
                        TreeEntry e = item.entry;
                        if (checksums && e.kind() == TreeEntry.Kind.FILE) {
                            e = e.withChecksum(Checksums.sha256(item.file, TreeWalker.how(item)));
                        }
                        sink.next(e);
                        return walker;
                    }
                }
            } catch (IOException e) {
                sink.error(IoErrors.source("tree " + root, e));
                return walker;
            }
        }, TreeWalker::close);
    }

    /** The listing of the tree at {@code root}, read here (see {@link #scan(Path, boolean)}), packed as it is walked. */
    public static Mono<TreeListing> local(Path root, boolean checksums) {
        return Mono.defer(() -> {
            ListingStore store = new ListingStore(ListingStore.MAX_BYTES);
            Path listed = StagedTree.listed(root);
            Path part = StagedTree.rootPart(listed);
            // As the listing sent to another host: a single file's part, alone in a container.
            Flux<TreeEntry> entries = part != null
                    ? walk(() -> new TreeWalker(List.of(part), false), root, checksums)
                            .subscribeOn(Schedulers.boundedElastic())
                    : scan(listed, checksums);
            return entries.doOnNext(store::add).then(Mono.fromCallable(() -> {
                store.seal();   // a walk lists no path twice
                return new TreeListing(store, List.of());
            }));
        });
    }

    /**
     * The listing of the tree at {@code root} as a tree stream, to send to the other host:
     * entries only, with their checksums if asked; an empty listing when {@code root} does not
     * exist (a first sync). Problems (a directory that cannot be listed) travel as notices.
     */
    public static Source source(Path root, boolean checksums) {
        return source(root, checksums, SourceOptions.defaults());
    }

    /** {@link #source(Path, boolean)} with these buffers and scheduler. */
    public static Source source(Path root, boolean checksums, SourceOptions io) {
        return TreeSource.listing(root, checksums, TreeSourceOptions.defaults().withIo(io));
    }

    /** {@link #read(Publisher, long)} with {@link #defaultMaxBytes()}. */
    public static Mono<TreeListing> read(Publisher<Chunk> stream) {
        return Mono.defer(() -> read(stream, defaultMaxBytes()));
    }

    /**
     * Reads a listing sent by {@link #source}; releases every chunk. Fails with a CODEC
     * {@link io.rdmaflux.error.RdmaFluxException} for a stream that is not a well-formed
     * listing, lists a path twice, or would hold more than {@code maxBytes} bytes here (see
     * the class comment), the last with a message that names the limit and how to raise it.
     */
    public static Mono<TreeListing> read(Publisher<Chunk> stream, long maxBytes) {
        return Mono.defer(() -> {
            Collector collector = new Collector(maxBytes);
            TreeParser parser = new TreeParser(collector);
            return Flux.from(stream)
                    .doOnNext(c -> {
                        try {
                            parser.feed(c.buffer());
                        } catch (IOException e) {
                            throw Exceptions.propagate(e);
                        } finally {
                            c.release();
                        }
                    })
                    .doOnDiscard(Chunk.class, Chunk::releaseQuietly)
                    .then(Mono.fromCallable(() -> {
                        parser.finish();
                        String twice = collector.store.seal();
                        if (twice != null) {
                            throw malformed("'" + twice + "' is listed twice");
                        }
                        return new TreeListing(collector.store, collector.problems);
                    }));
        });
    }

    /** The entry at {@code path} (relative, {@code /}-separated; "" for the root). */
    public Optional<TreeEntry> get(String path) {
        int at = store.find(path);
        return at < 0 ? Optional.empty() : Optional.of(store.entry(at));
    }

    /**
     * Whether the listing has a regular file at {@code path} of this size and modification
     * time: a sync's quick check, without making an entry.
     */
    boolean hasFile(String path, long size, long mtimeNanos) {
        int at = store.find(path);
        return at >= 0 && store.kind(at) == TreeEntry.Kind.FILE.code() && store.size(at) == size
                && store.mtime(at) == mtimeNanos;
    }

    /**
     * Whether it holds a part of a file that a cut copy kept ({@code .rdflux-NAME.part},
     * {@link StagedTree}): a stream against it may resume files. Looked for once.
     */
    boolean hasParts() {
        Boolean h = hasParts;
        if (h == null) {
            h = false;
            for (TreeEntry e : entries()) {
                String n = e.name();
                if (e.kind() == TreeEntry.Kind.FILE && n.startsWith(".rdflux-") && n.endsWith(".part")) {
                    h = true;
                    break;
                }
            }
            hasParts = h;
        }
        return h;
    }

    /**
     * The path of the part a cut copy kept of a single file, when this is the listing made for
     * it ({@link StagedTree#rootPart}: a root directory holding that part alone); else null.
     */
    String rootPart() {
        if (store.count != 2) {
            return null;
        }
        Iterator<TreeEntry> it = store.iterator();
        TreeEntry root = it.next();
        TreeEntry part = it.next();
        String n = part.name();
        return root.kind() == TreeEntry.Kind.DIRECTORY && part.kind() == TreeEntry.Kind.FILE
                && part.path().equals(n) && n.startsWith(".rdflux-") && n.endsWith(".part") ? n : null;
    }

    /** The number of entries. */
    public int size() {
        return store.count;
    }

    /** What the listing holds, in bytes, as its budget counts them (see the class comment). */
    public long bytes() {
        return store.bytes;
    }

    /** The entries in the stream's order, made as they are iterated. */
    public Collection<TreeEntry> entries() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<TreeEntry> iterator() {
                return store.iterator();
            }

            @Override
            public int size() {
                return store.count;
            }
        };
    }

    /** What the listing side could not read, as {@code "path: message"}. */
    public List<String> problems() {
        return problems;
    }

    @Override
    public String toString() {
        return "TreeListing[" + store.count + " entries]";
    }

    /** Gathers a listing's entries, refusing anything a listing cannot hold; the sequence is {@link TreeRules#listing()}'s. */
    private static final class Collector implements TreeParser.Handler {

        final ListingStore store;
        final List<String> problems = new ArrayList<>();
        final TreeRules rules = TreeRules.listing();

        Collector(long maxBytes) {
            this.store = new ListingStore(Math.min(maxBytes, ListingStore.MAX_BYTES));
        }

        @Override
        public void header(int flags) throws IOException {
            rules.header(flags);
        }

        @Override
        public void entry(int id, TreeEntry entry, int flags) throws IOException {
            rules.entry(id, entry, flags);
            if (!store.add(entry)) {
                throw malformed("the listing needs more than " + mib(store.maxBytes) + " of memory here (its limit, "
                        + "a third of the Java heap) at entry " + (rules.entries() - 1) + ": raise the heap with "
                        + "RDFLUX_JAVA_OPTS=-Xmx<size> (e.g. -Xmx1g), or sync a smaller tree");
            }
        }

        private static String mib(long bytes) {
            return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes + " bytes";
        }

        @Override
        public void data(int id, ByteBuffer data) throws IOException {
            rules.contents(id, "DATA", data.remaining());
        }

        @Override
        public void hole(int id, long count) throws IOException {
            rules.contents(id, "HOLE", count);
        }

        @Override
        public void fileEnd(int id, String failure, long length, int crc) throws IOException {
            rules.fileEnd(id, failure, length);
        }

        @Override
        public void notice(boolean error, String path, String message) {
            if (problems.size() < 1000) {
                problems.add((path.isEmpty() ? "." : path) + ": " + message);
            }
        }

        @Override
        public void end(long entries, long bytes, long failures) throws IOException {
            rules.end(entries, bytes, failures);
        }
    }
}
