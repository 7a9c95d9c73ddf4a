package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.Source;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A directory tree as one byte stream, in the tree format ({@code docs/tree-format.md}): every
 * entry (files, directories, symbolic links as links, hard links) with its mode and
 * modification time, and the files' contents, each file checked by length and CRC32C.
 *
 * <p>Small files are packed one after another into the chunks in walk order, one
 * open/read/close each; files of at least {@link TreeSourceOptions#largeFileSize()} bytes are
 * read with large positional reads, {@link TreeSourceOptions#parallelFiles()} of them at once,
 * their chunks interleaved in the stream. Runs of zeros one read long travel as holes.
 *
 * <p><b>Per-file failures.</b> A file that cannot be opened or read, or that changes while it
 * is read (its size, mtime or ctime differ afterwards from what the walk saw, or it ends early),
 * is marked failed in the stream: the sink discards it and reports it by name, and the rest of
 * the tree still arrives. A directory that cannot be listed, a special file (device, FIFO,
 * socket; never copied) and a name that is not valid in the file-name encoding become notices.
 * The Flux itself fails only when the tree cannot be walked at all.
 *
 * <p>A source is a description: each subscription to {@link #open()} walks the tree afresh. All
 * reads run on the options' scheduler; see {@link Source} for ownership and
 * {@link TreeSourceOptions} for the memory bound.
 *
 * <pre>{@code
 * TreeSource source = TreeSource.of(Path.of("models"));
 * FluxSender.create().host(h).port(p).key(k)
 *         .send(source.metadata(), session -> source.open());
 * }</pre>
 */
public final class TreeSource implements Source {

    private final Path root;
    private final List<Path> container;
    private final TreeSourceOptions options;
    private final boolean listing;
    private final boolean checksums;

    private TreeSource(Path root, List<Path> container, TreeSourceOptions options, boolean listing, boolean checksums) {
        this.root = root;
        this.container = container;
        this.options = options;
        this.listing = listing;
        this.checksums = checksums;
    }

    /** {@link #of(Path, TreeSourceOptions)} with default options. */
    public static TreeSource of(Path root) {
        return of(root, TreeSourceOptions.defaults());
    }

    /**
     * A source for the tree at {@code root}: a directory, or a single file or symbolic link (a
     * tree of one entry). A link at {@code root} itself is followed; links inside are not,
     * unless {@link TreeSourceOptions#followSymlinks()}. Checks now that the root exists and
     * can be read, so that a command fails before it connects anywhere.
     *
     * @throws ConnectorException (SOURCE_FAILED) with a one-line message otherwise
     */
    public static TreeSource of(Path root, TreeSourceOptions options) {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(options, "options");
        check(root);
        return new TreeSource(root, null, options, false, false);
    }

    /**
     * A source for several trees, files or links at once, as the entries of a <em>container</em>
     * root, each under its own name (the last component of its path; a link there is followed):
     * what {@code cp -r a b dir/} copies. The sink puts them into its destination directory and
     * leaves that directory's own mode, time and other entries alone (with deletion, it deletes
     * only inside the roots). Checks now that each root exists and can be read.
     *
     * @throws ConnectorException (SOURCE_FAILED) with a one-line message when one cannot be
     *                            read, or two roots have the same name
     */
    public static TreeSource container(List<Path> roots, TreeSourceOptions options) {
        Objects.requireNonNull(options, "options");
        Set<Path> names = new HashSet<>();
        for (Path root : roots) {
            Path name = root.getFileName();
            if (name == null || name.toString().equals(".") || name.toString().equals("..")) {
                throw ConnectorException.source(Reason.NOT_A_FILE, "cannot copy " + root
                        + " as a named entry: it has no name of its own (name the directory itself)", null);
            }
            if (!names.add(name)) {
                throw ConnectorException.source(Reason.NOT_A_FILE, "two sources are named '" + name
                        + "': they would land on the same path", null);
            }
            check(root);
        }
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("a container needs at least one root");
        }
        return new TreeSource(roots.get(0), List.copyOf(roots), options, false, false);
    }

    /** Throws unless {@code root} exists and can be read. */
    private static void check(Path root) {
        if (!Files.exists(root)) {
            throw ConnectorException.source(Reason.NOT_FOUND, "cannot read " + root + ": no such file or directory", null);
        }
        try {
            if (Files.isDirectory(root)) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
                    ds.iterator().hasNext();
                }
            } else if (Files.isRegularFile(root)) {
                FileChannel.open(root, StandardOpenOption.READ).close();
            } else {
                throw ConnectorException.source(Reason.NOT_A_FILE, "cannot read " + root
                        + ": not a directory, regular file or symbolic link", null);
            }
        } catch (IOException | SecurityException e) {
            throw IoErrors.source(root.toString(), e);
        }
    }

    /**
     * A source of the listing of {@code root}: entries only (see {@link TreeListing}); of the
     * directory a cut copy staged for it when it does not exist ({@link StagedTree#listed}).
     */
    static TreeSource listing(Path root, boolean checksums, TreeSourceOptions options) {
        return new TreeSource(StagedTree.listed(root), null, options, true, checksums);
    }

    /** This source with other options. */
    public TreeSource withOptions(TreeSourceOptions options) {
        return new TreeSource(root, container, Objects.requireNonNull(options), listing, checksums);
    }

    /** The tree's root (a container's first root). */
    public Path root() {
        return root;
    }

    public TreeSourceOptions options() {
        return options;
    }

    @Override
    public Flux<Chunk> open() {
        return TreeReader.flux(root, container, options, listing, checksums);
    }

    /**
     * What this source would send, counted by a walk of its own (no file is opened): the
     * regular files and their bytes, without the bytes of files its baseline finds current by
     * size and modification time (a sync). A second name of a file (a hard link, when the
     * options keep them) is a link, not a file: it counts neither as one nor with its bytes,
     * as the sink counts it. An estimate: the tree may change before it is read,
     * and a checksum comparison may find more files current. For a progress display's totals.
     *
     * @return the totals, walked on the options' scheduler
     */
    public Mono<Totals> totals() {
        return Mono.fromCallable(() -> {
            long files = 0;
            long bytes = 0;
            TreeListing baseline = options.baseline();
            PackedSet linked = new PackedSet();
            try (TreeWalker walker = container != null ? new TreeWalker(container, options.followSymlinks())
                    : new TreeWalker(root, options.followSymlinks())) {
                for (TreeWalker.Item item; (item = walker.peek()) != null; walker.advance()) {
                    TreeEntry e = item.entry;
                    if (e == null || e.kind() != TreeEntry.Kind.FILE) {
                        continue;
                    }
                    if (options.hardLinks() && item.nlink > 1 && item.fileKey != null) {
                        byte[] key = TreeFormat.utf8(item.fileKey.toString());
                        if (linked.contains(key)) {
                            continue;   // as TreePacker sends it: a second name of a file seen before
                        }
                        linked.put(key, 0);
                    }
                    files++;
                    if (baseline == null || !baseline.hasFile(e.path(), e.size(), e.mtimeNanos())) {
                        bytes += e.size();
                    }
                }
            }
            return new Totals(files, bytes);
        }).subscribeOn(options.io().scheduler());
    }

    /**
     * A tree's size, as {@link #totals()} counts it.
     *
     * @param files regular files
     * @param bytes their content bytes (those to send, in a sync)
     */
    public record Totals(long files, long bytes) {
    }

    /** The root's name; none for a container. */
    @Override
    public Optional<String> name() {
        if (container != null) {
            return Optional.empty();
        }
        Path name = root.toAbsolutePath().normalize().getFileName();
        return name == null ? Optional.empty() : Optional.of(name.toString());
    }

    /** Unknown: the stream's length depends on the walk ({@link TreeListing#scan} counts in advance). */
    @Override
    public OptionalLong size() {
        return OptionalLong.empty();
    }

    @Override
    public String describe() {
        return container != null ? container.toString() : root.toString();
    }

    @Override
    public String toString() {
        return "TreeSource[" + root + (listing ? ", listing" : "") + "]";
    }
}
