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
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;

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
    private final TreeSourceOptions options;
    private final boolean listing;
    private final boolean checksums;

    private TreeSource(Path root, TreeSourceOptions options, boolean listing, boolean checksums) {
        this.root = root;
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
        return new TreeSource(root, options, false, false);
    }

    /** A source of the listing of {@code root}: entries only (see {@link TreeListing}). */
    static TreeSource listing(Path root, boolean checksums, TreeSourceOptions options) {
        return new TreeSource(root, options, true, checksums);
    }

    /** This source with other options. */
    public TreeSource withOptions(TreeSourceOptions options) {
        return new TreeSource(root, Objects.requireNonNull(options), listing, checksums);
    }

    /** The tree's root. */
    public Path root() {
        return root;
    }

    public TreeSourceOptions options() {
        return options;
    }

    @Override
    public Flux<Chunk> open() {
        return TreeReader.flux(root, options, listing, checksums);
    }

    /** The root's name. */
    @Override
    public Optional<String> name() {
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
        return root.toString();
    }

    @Override
    public String toString() {
        return "TreeSource[" + root + (listing ? ", listing" : "") + "]";
    }
}
