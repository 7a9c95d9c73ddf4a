package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A file as a sink. The bytes are written with positional writes to a temporary file in the
 * target's directory ({@code .NAME.rdflux-XXXXXXXX.part}), optionally synced, and the file is
 * renamed to its final name only when the whole stream has arrived, replacing any file of that
 * name (keeping the old file's permissions). A stream that fails or is cancelled leaves no
 * partial file behind: it is removed, and the error says so.
 *
 * <p>Special files ({@code /dev/null}, a FIFO, a terminal, anything under {@code /dev/} but
 * {@code /dev/shm/}, or under {@code /proc/}, such as {@code /dev/stdout}) are written in place, sequentially and in append
 * mode, with no temporary name; on failure their error says how many bytes were written.
 *
 * <p>Writes run on the options' scheduler, never on the thread that delivers the chunks; see
 * {@link Sink} for ownership and {@link SinkOptions} for the memory bound.
 *
 * <pre>{@code
 * Sink sink = FileSink.of(Path.of("model.bin"));   // throws if the directory is missing
 * FluxReceiver.create().port(7691).key(k)
 *         .handle(stream -> sink.write(stream.receiveChunks(), stream.metadata()).then())
 *         .receiveOne().block();
 * }</pre>
 */
public final class FileSink implements Sink {

    private final Path path;
    private final boolean inPlace;
    private final SinkOptions options;

    private FileSink(Path path, boolean inPlace, SinkOptions options) {
        this.path = path;
        this.inPlace = inPlace;
        this.options = options;
    }

    /** {@link #of(Path, SinkOptions)} with default options. */
    public static FileSink of(Path path) {
        return of(path, SinkOptions.defaults());
    }

    /**
     * A sink that writes the file at {@code path}. Checks now that the path is not a directory
     * and that its directory exists; whether it may be written is known when writing starts
     * (the file is created as soon as {@link #write} is subscribed).
     *
     * @throws ConnectorException (SINK_FAILED) with a one-line message otherwise
     */
    public static FileSink of(Path path, SinkOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        if (Files.isDirectory(path)) {
            throw ConnectorException.sink(Reason.NOT_A_FILE, "cannot write " + path + ": is a directory", null);
        }
        if (isSpecial(path)) {
            return new FileSink(path, true, options);
        }
        Path dir = path.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw ConnectorException.sink(Reason.NOT_FOUND, "cannot write " + path + ": directory " + dir
                    + " does not exist", null);
        }
        return new FileSink(path, false, options);
    }

    /**
     * Files that are written in place: anything but a regular file or a new file outside /dev and
     * /proc. /dev/shm is a tmpfs for ordinary files (scratch copies), not a device.
     */
    private static boolean isSpecial(Path path) {
        String abs = path.toAbsolutePath().normalize().toString();
        if (abs.startsWith("/dev/") && !abs.startsWith("/dev/shm/") || abs.startsWith("/proc/")) {
            return true;
        }
        return Files.exists(path) && !Files.isRegularFile(path);
    }

    /** This sink with other options. */
    public FileSink withOptions(SinkOptions options) {
        return new FileSink(path, inPlace, Objects.requireNonNull(options));
    }

    /** The file written. */
    public Path path() {
        return path;
    }

    /** Whether the file is written in place (a special file) rather than through a temporary file. */
    public boolean inPlace() {
        return inPlace;
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        Objects.requireNonNull(data, "data");
        return Mono.defer(() -> WriteLoop.write(inPlace ? new InPlace(path) : new TempThenRename(path, options.fsync()),
                data, options));
    }

    @Override
    public String describe() {
        return path.toString();
    }

    @Override
    public String toString() {
        return "FileSink[" + path + (inPlace ? ", in place" : "") + "]";
    }

    /** Writes a temporary file next to the target and renames it on success. */
    private static final class TempThenRename implements WriteTarget {

        private final Path target;
        private final boolean fsync;
        private Path temp;
        private FileChannel channel;
        private long position;

        TempThenRename(Path target, boolean fsync) {
            this.target = target;
            this.fsync = fsync;
        }

        @Override
        public void open() throws IOException {
            Path abs = target.toAbsolutePath();
            String name = abs.getFileName().toString();
            String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
            Path t = abs.resolveSibling("." + name + ".rdflux-" + suffix + ".part");
            channel = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            temp = t;
            try {
                if (Files.isRegularFile(abs)) {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(abs);
                    Files.setPosixFilePermissions(temp, perms);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // Keeping the old file's mode is a courtesy; the default mode is fine.
            }
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                position += channel.write(src, position);
            }
        }

        @Override
        public String commit() throws IOException {
            if (fsync) {
                channel.force(true);
            }
            channel.close();
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
            if (fsync) {
                Path dir = target.toAbsolutePath().getParent();
                try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                    d.force(true);
                }
            }
            return target.toString();
        }

        @Override
        public String abort() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // The file is removed next; a close error changes nothing.
                }
            }
            if (temp == null) {
                return channel == null ? "nothing was written" : target + " was written but could not be synced";
            }
            try {
                Files.deleteIfExists(temp);
                return "partial file removed, " + target + " left unchanged";
            } catch (IOException e) {
                return "the partial file " + temp + " could not be removed (" + IoErrors.text(e) + ")";
            }
        }

        @Override
        public String describe() {
            return target.toString();
        }
    }

    /** Writes a special file in place, sequentially. */
    private static final class InPlace implements WriteTarget {

        private final Path path;
        private FileChannel channel;
        private long written;

        InPlace(Path path) {
            this.path = path;
        }

        @Override
        public void open() throws IOException {
            // A FIFO blocks here until a reader comes; this runs on the sink's scheduler.
            channel = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                written += channel.write(src);
            }
        }

        @Override
        public String commit() throws IOException {
            channel.close();
            return path.toString();
        }

        @Override
        public String abort() {
            if (channel == null) {
                return "nothing was written";
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing to clean up in a special file.
            }
            return written + " bytes were already written to " + path;
        }

        @Override
        public String describe() {
            return path.toString();
        }
    }
}
