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
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * <p>A listing holds every entry in memory (about 150 bytes each); {@link #read} refuses more
 * than a limit.
 */
public final class TreeListing {

    /** The most entries {@link #read(Publisher)} accepts. */
    public static final int DEFAULT_MAX_ENTRIES = 5_000_000;

    private final Map<String, TreeEntry> entries;
    private final List<String> problems;

    private TreeListing(Map<String, TreeEntry> entries, List<String> problems) {
        this.entries = Collections.unmodifiableMap(entries);
        this.problems = List.copyOf(problems);
    }

    /** A listing of these entries. */
    public static TreeListing of(Collection<TreeEntry> entries) {
        Map<String, TreeEntry> m = new LinkedHashMap<>();
        for (TreeEntry e : entries) {
            m.put(e.path(), e);
        }
        return new TreeListing(m, List.of());
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
        return Flux.<TreeEntry, TreeWalker>generate(() -> new TreeWalker(root, false), (walker, sink) -> {
            try {
                if (!Files.exists(root)) {
                    sink.complete();
                    return walker;
                }
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
        }, TreeWalker::close).subscribeOn(scheduler);
    }

    /** The listing of the tree at {@code root}, read here (see {@link #scan(Path, boolean)}). */
    public static Mono<TreeListing> local(Path root, boolean checksums) {
        return scan(root, checksums).collectList().map(TreeListing::of);
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

    /** {@link #read(Publisher, int)} with {@link #DEFAULT_MAX_ENTRIES}. */
    public static Mono<TreeListing> read(Publisher<Chunk> stream) {
        return read(stream, DEFAULT_MAX_ENTRIES);
    }

    /**
     * Reads a listing sent by {@link #source}; releases every chunk. Fails with a PROTOCOL
     * {@link io.rdmaflux.protocol.ProtocolException} for a stream that is not a well-formed
     * listing or lists more than {@code maxEntries} entries.
     */
    public static Mono<TreeListing> read(Publisher<Chunk> stream, int maxEntries) {
        return Mono.defer(() -> {
            Collector collector = new Collector(maxEntries);
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
                        return new TreeListing(collector.entries, collector.problems);
                    }));
        });
    }

    /** The entry at {@code path} (relative, {@code /}-separated; "" for the root). */
    public Optional<TreeEntry> get(String path) {
        return Optional.ofNullable(entries.get(path));
    }

    /** The number of entries. */
    public int size() {
        return entries.size();
    }

    /** The entries in the stream's order. */
    public Collection<TreeEntry> entries() {
        return entries.values();
    }

    /** What the listing side could not read, as {@code "path: message"}. */
    public List<String> problems() {
        return problems;
    }

    @Override
    public String toString() {
        return "TreeListing[" + entries.size() + " entries]";
    }

    /** Gathers a listing's entries, refusing anything a listing cannot hold. */
    private static final class Collector implements TreeParser.Handler {

        final Map<String, TreeEntry> entries = new LinkedHashMap<>();
        final List<String> problems = new ArrayList<>();
        final int max;
        long next;

        Collector(int max) {
            this.max = max;
        }

        @Override
        public void header(int flags) throws IOException {
            if ((flags & TreeFormat.FLAG_LISTING) == 0) {
                throw malformed("a tree with contents where a listing was expected");
            }
        }

        @Override
        public void entry(int id, TreeEntry entry, int flags) throws IOException {
            if ((id & 0xffffffffL) != next++) {
                throw malformed("entry " + id + " out of sequence");
            }
            if ((flags & TreeFormat.F_DATA) != 0) {
                throw malformed("a listing entry with contents");
            }
            if (entries.size() >= max) {
                throw malformed("the listing has more than " + max + " entries");
            }
            entries.put(entry.path(), entry);
        }

        @Override
        public void data(int id, ByteBuffer data) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void hole(int id, long count) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void fileEnd(int id, String failure, long length, int crc) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void notice(boolean error, String path, String message) {
            if (problems.size() < 1000) {
                problems.add((path.isEmpty() ? "." : path) + ": " + message);
            }
        }

        @Override
        public void end(long entries, long bytes, long failures) throws IOException {
            if (entries != next) {
                throw malformed("END counts " + entries + " entries, the listing had " + next);
            }
        }
    }
}
