package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import reactor.core.publisher.Flux;

/**
 * A file as a source. A regular file is read with large positional reads
 * ({@link FileChannel#read(java.nio.ByteBuffer, long)}) of {@link SourceOptions#chunkSize()}
 * bytes into pooled direct buffers, and its size is reported. Other files (a FIFO,
 * {@code /dev/zero}, {@code /dev/stdin}, a process substitution) and the made-up files of
 * /proc and /sys, whose sizes mean nothing, are read sequentially and their size is unknown.
 *
 * <p>A regular file is sent as it was when the source was made: exactly the size it had then
 * (the size announced to the receiver), and the Flux fails (SOURCE_FAILED, naming the file)
 * when the file ends sooner (truncated while it was read), or when at the end its size,
 * modification time or identity (inode) differ from what they were (written to, grown or
 * replaced meanwhile), so that a receiver never takes a file cut or mixed up in flight for the
 * whole one. All reads run on the options' scheduler; see {@link Source} for ownership and
 * {@link SourceOptions} for the memory bound.
 *
 * <pre>{@code
 * Source source = FileSource.of(Path.of("model.bin"));   // throws if missing or a directory
 * FluxSender.create().host(h).port(p).key(k)
 *         .send(source.metadata(), session -> source.open());
 * }</pre>
 */
public final class FileSource implements Source {

    /** File systems whose files are made up when read: their sizes say nothing. */
    private static final Set<String> PSEUDO = Set.of("proc", "sysfs", "debugfs", "tracefs", "securityfs",
            "configfs", "efivarfs", "cgroup", "cgroup2", "pstore", "bpf");

    private final Path path;
    /** What is opened: {@code path}, or in a served call the caller's stream it names. */
    private final Path opened;
    /** What a regular file was when the source was made; null for other files. */
    private final Snapshot snapshot;
    /** A made-up file (/proc, /sys): read from its start to its end, whatever size it claims. */
    private final boolean pseudo;
    private final SourceOptions options;

    /** A regular file's size, modification time and identity when it was opened. */
    private record Snapshot(long size, FileTime modified, Object key) {
    }

    private FileSource(Path path, Path opened, Snapshot snapshot, boolean pseudo, SourceOptions options) {
        this.path = path;
        this.opened = opened;
        this.snapshot = snapshot;
        this.pseudo = pseudo;
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
        Path opened;
        try {
            // A served call's /dev/stdin is its caller's; messages keep naming the user's path.
            opened = StandardStreams.resolve(path);
        } catch (StandardStreams.NotPassed e) {
            throw ConnectorException.source(Reason.IO, "cannot read " + path + ": " + e.getMessage(), e);
        }
        if (!Files.exists(opened)) {
            throw ConnectorException.source(Reason.NOT_FOUND, "cannot read " + path + ": no such file or directory", null);
        }
        if (Files.isDirectory(opened)) {
            throw ConnectorException.source(Reason.NOT_A_FILE, "cannot read " + path + ": is a directory", null);
        }
        Snapshot snapshot = null;
        boolean pseudo = Files.isRegularFile(opened) && pseudo(opened);
        if (Files.isRegularFile(opened) && !pseudo) {
            // Opening is the only reliable permission check (root, ACLs, read-only mounts).
            try (FileChannel c = FileChannel.open(opened, StandardOpenOption.READ)) {
                BasicFileAttributes a = Files.readAttributes(opened, BasicFileAttributes.class);
                snapshot = new Snapshot(c.size(), a.lastModifiedTime(), a.fileKey());
            } catch (IOException | SecurityException e) {
                throw IoErrors.source(path.toString(), e);
            }
        } else if (!Files.isReadable(opened)) {
            throw ConnectorException.source(Reason.PERMISSION_DENIED, "cannot read " + path + ": permission denied", null);
        }
        return new FileSource(path, opened, snapshot, pseudo, options);
    }

    private static boolean pseudo(Path path) {
        try {
            return PSEUDO.contains(Files.getFileStore(path).type());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** This source with other options. */
    public FileSource withOptions(SourceOptions options) {
        return new FileSource(path, opened, snapshot, pseudo, Objects.requireNonNull(options));
    }

    /** The file read. */
    public Path path() {
        return path;
    }

    @Override
    public Flux<Chunk> open() {
        return ReadLoop.flux(path.toString(), () -> {
            if (snapshot != null) {
                return PositionalReader.of(FileChannel.open(opened, StandardOpenOption.READ), snapshot.size(),
                        this::verifyUnchanged);
            }
            if (pseudo) {
                return PositionalReader.of(FileChannel.open(opened, StandardOpenOption.READ), Long.MAX_VALUE,
                        (channel, read) -> { });
            }
            // Opening a FIFO blocks until a writer comes; this runs on the scheduler.
            FileInputStream in = new FileInputStream(opened.toFile());
            return ChunkReader.sequential(in.getChannel(), in, true);
        }, options);
    }

    /** At the end of a regular file: fails unless it is still the file, and the size, it was. */
    private void verifyUnchanged(FileChannel channel, long read) throws IOException {
        if (read < snapshot.size()) {
            throw ConnectorException.source(Reason.IO, "cannot read " + path + ": the file shrank while it was sent ("
                    + snapshot.size() + " bytes announced, it ended after " + read + ")", null);
        }
        BasicFileAttributes now = Files.readAttributes(opened, BasicFileAttributes.class);
        String change = channel.size() != snapshot.size() || now.size() != snapshot.size()
                ? "its size went from " + snapshot.size() + " to " + Math.max(channel.size(), now.size()) + " bytes"
                : !Objects.equals(now.fileKey(), snapshot.key()) ? "another file took its name"
                : !now.lastModifiedTime().equals(snapshot.modified()) ? "it was written to" : null;
        if (change != null) {
            throw ConnectorException.source(Reason.IO, "cannot read " + path + ": the file changed while it was sent ("
                    + change + ")", null);
        }
    }

    @Override
    public Optional<String> name() {
        Path name = path.getFileName();
        return name == null ? Optional.empty() : Optional.of(name.toString());
    }

    @Override
    public OptionalLong size() {
        return snapshot != null ? OptionalLong.of(snapshot.size()) : OptionalLong.empty();
    }

    @Override
    public String describe() {
        return path.toString();
    }

    @Override
    public String toString() {
        return "FileSource[" + path + (snapshot != null ? ", " + snapshot.size() + " bytes" : "") + "]";
    }
}
