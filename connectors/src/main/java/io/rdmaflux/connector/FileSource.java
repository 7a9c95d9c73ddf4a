package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;

/**
 * A file as a source. A regular file is read with large positional reads
 * ({@link FileChannel#read(java.nio.ByteBuffer, long)}) of {@link SourceOptions#chunkSize()}
 * bytes into pooled direct buffers, and its size is reported. Other files (a FIFO,
 * {@code /dev/zero}, {@code /dev/stdin}, a process substitution) are read sequentially and
 * their size is unknown.
 *
 * <p>The file is read to its end as it is when read (a file that grows while it is sent is
 * sent with what it grew by). All reads run on the options' scheduler; see {@link Source} for
 * ownership and {@link SourceOptions} for the memory bound.
 *
 * <pre>{@code
 * Source source = FileSource.of(Path.of("model.bin"));   // throws if missing or a directory
 * FluxSender.create().host(h).port(p).key(k)
 *         .send(source.metadata(), session -> source.open());
 * }</pre>
 */
public final class FileSource implements Source {

    private final Path path;
    private final boolean regular;
    private final long size;
    private final SourceOptions options;

    private FileSource(Path path, boolean regular, long size, SourceOptions options) {
        this.path = path;
        this.regular = regular;
        this.size = size;
        this.options = options;
    }

    /** {@link #of(Path, SourceOptions)} with default options. */
    public static FileSource of(Path path) {
        return of(path, SourceOptions.defaults());
    }

    /**
     * A source for the file at {@code path}. Checks now that it exists, is not a directory and
     * can be opened for reading, so that a command fails before it connects anywhere.
     *
     * @throws ConnectorException (SOURCE_FAILED) with a one-line message otherwise
     */
    public static FileSource of(Path path, SourceOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        if (!Files.exists(path)) {
            throw ConnectorException.source(Reason.NOT_FOUND, "cannot read " + path + ": no such file or directory", null);
        }
        if (Files.isDirectory(path)) {
            throw ConnectorException.source(Reason.NOT_A_FILE, "cannot read " + path + ": is a directory", null);
        }
        boolean regular = Files.isRegularFile(path);
        long size = -1;
        if (regular) {
            // Opening is the only reliable permission check (root, ACLs, read-only mounts).
            try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
                size = c.size();
            } catch (IOException | SecurityException e) {
                throw IoErrors.source(path.toString(), e);
            }
        } else if (!Files.isReadable(path)) {
            throw ConnectorException.source(Reason.PERMISSION_DENIED, "cannot read " + path + ": permission denied", null);
        }
        return new FileSource(path, regular, size, options);
    }

    /** This source with other options. */
    public FileSource withOptions(SourceOptions options) {
        return new FileSource(path, regular, size, Objects.requireNonNull(options));
    }

    /** The file read. */
    public Path path() {
        return path;
    }

    @Override
    public Flux<Chunk> open() {
        return ReadLoop.flux(path.toString(), () -> {
            if (regular) {
                return ChunkReader.positional(FileChannel.open(path, StandardOpenOption.READ));
            }
            // Opening a FIFO blocks until a writer comes; this runs on the scheduler.
            FileInputStream in = new FileInputStream(path.toFile());
            return ChunkReader.sequential(in.getChannel(), in, true);
        }, options);
    }

    @Override
    public Optional<String> name() {
        Path name = path.getFileName();
        return name == null ? Optional.empty() : Optional.of(name.toString());
    }

    @Override
    public OptionalLong size() {
        return size >= 0 ? OptionalLong.of(size) : OptionalLong.empty();
    }

    @Override
    public String describe() {
        return path.toString();
    }

    @Override
    public String toString() {
        return "FileSource[" + path + (size >= 0 ? ", " + size + " bytes" : "") + "]";
    }
}
