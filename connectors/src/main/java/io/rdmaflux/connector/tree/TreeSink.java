package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.WriteTarget;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Recreates a tree stream ({@code docs/tree-format.md}, as a {@link TreeSource} sends it)
 * under a destination directory.
 *
 * <p>In a directory that this sink created, each file is written under its own name; anywhere
 * else under a temporary name in its own directory ({@code .rdflux-XXXXXXXXXXXXXXXX.part}),
 * renamed to its name (replacing a file or link of that name) once checked. Either way it is
 * checked against its length and CRC32C when its end arrives and only then given its mode and
 * modification time. Files of up to 64 KiB are written by the sink's own writer threads
 * ({@link TreeSinkOptions#writerThreads()}). Directories are created as they come and get their
 * modes and times last, children first. A file the sender marked failed, or that cannot be
 * written here, is discarded and reported by name in the {@link TreeReport}; the rest of the
 * tree still arrives. Completed files stay in place if the stream fails later (a sync re-run
 * sends only what is missing); partial files are removed, but for what arrived of a large file,
 * kept as its part ({@code .rdflux-NAME.part}) for a sync to resume after it checked it. A
 * destination directory this sink creates is written staged beside its name and renamed to it
 * when the stream ends ({@link StagedTree}), so a cut copy leaves nothing under that name and a
 * re-run finds the staged part. A killed process cannot remove its
 * partial file: in a directory it created, that file keeps the mtime of its writing rather
 * than the sender's, so a quick sync sends it again ({@code docs/tree-format.md}).
 *
 * <p>The stream is trusted with nothing: an entry that would land outside the destination
 * (absolute paths, {@code ..}, a path through a symbolic link, including one the stream made),
 * a device or other unknown kind, data longer or shorter than its header says, or a stream
 * that ends without its END record, fails the stream with a CODEC (bad data)
 * {@link io.rdmaflux.error.RdmaFluxException} that names the entry, and nothing is written
 * outside the destination. A directory gets its whole mode (sticky and setgid too); a file its
 * mode less setuid and setgid, with one warning that counts those files: a stream cannot make
 * set-id programs.
 *
 * <p>A dry run ({@link TreeSinkOptions#dryRun()}) reads and checks the whole stream and tells
 * the listener what would be written and deleted, changing nothing at the destination.
 *
 * <p>Writes run on the options' scheduler, never on the thread that delivers the chunks; see
 * {@link Sink} for ownership and {@link TreeSinkOptions} for the memory bound.
 *
 * <pre>{@code
 * TreeSink sink = TreeSink.of(Path.of("models"));
 * FluxReceiver.create().port(7691).key(k)
 *         .handle(stream -> sink.writeTree(stream.receiveChunks())
 *                 .doOnNext(report -> report.failureLines().forEach(System.err::println))
 *                 .then())
 *         .receiveOne().block();
 * }</pre>
 */
public final class TreeSink implements Sink {

    private final Path dest;
    private final TreeSinkOptions options;

    private TreeSink(Path dest, TreeSinkOptions options) {
        this.dest = dest;
        this.options = options;
    }

    /** {@link #of(Path, TreeSinkOptions)} with default options. */
    public static TreeSink of(Path dest) {
        return of(dest, TreeSinkOptions.defaults());
    }

    /**
     * A sink that makes {@code dest} the copy of the stream's root: a directory, created if
     * missing and merged into if it exists (a link at {@code dest} itself is followed), or, for
     * a tree of one file, that file. Checks now that its parent directory exists.
     *
     * @throws ConnectorException (SINK_FAILED) with a one-line message otherwise
     */
    public static TreeSink of(Path dest, TreeSinkOptions options) {
        Objects.requireNonNull(dest, "dest");
        Objects.requireNonNull(options, "options");
        Path abs = dest.toAbsolutePath().normalize();
        Path parent = abs.getParent();
        // A dry run makes nothing: a missing parent that a real run would make first (rdcp's DST/) is no error.
        boolean wouldBeMade = options.dryRun() && parent != null && !Files.exists(parent)
                && parent.getParent() != null && Files.isDirectory(parent.getParent());
        if (parent != null && !Files.isDirectory(parent) && !wouldBeMade) {
            throw Files.exists(parent)
                    ? ConnectorException.sink(Reason.NOT_A_FILE, "cannot write " + dest + ": " + parent
                            + " is not a directory", null)
                    : ConnectorException.sink(Reason.NOT_FOUND, "cannot write " + dest + ": directory " + parent
                            + " does not exist", null);
        }
        return new TreeSink(abs, options);
    }

    /** This sink with other options. */
    public TreeSink withOptions(TreeSinkOptions options) {
        return new TreeSink(dest, Objects.requireNonNull(options));
    }

    public TreeSinkOptions options() {
        return options;
    }

    /** The destination. */
    public Path dest() {
        return dest;
    }

    /**
     * Writes the tree and reports what arrived and what did not. Completes when the stream has
     * ended with its END record and every entry is in place or reported failed; fails when the
     * stream is malformed, cut short or cancelled, or the destination cannot be written at all
     * (a full disk).
     */
    public Mono<TreeReport> writeTree(Publisher<Chunk> data) {
        Objects.requireNonNull(data, "data");
        return Mono.defer(() -> {
            TreeWriter writer = new TreeWriter(dest, options);
            return WriteTarget.run(writer, data, options.io()).map(r -> writer.report());
        });
    }

    /** {@link #writeTree}, its failures as {@link SinkResult#failures()} lines. */
    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        return writeTree(data).map(TreeReport::asSinkResult);
    }

    @Override
    public String describe() {
        return dest.toString();
    }

    @Override
    public String toString() {
        return "TreeSink[" + dest + "]";
    }
}
