package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Objects;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A file as a sink. A regular file (new, or replacing one) is written with positional writes
 * to a temporary file beside it, {@code .NAME.rdflux-TAG-PID-RANDOM.part}, synced when asked,
 * and renamed to its final name only when the whole stream has arrived, replacing any file of
 * that name (keeping the old file's permissions). A stream that fails or is cancelled leaves
 * no partial file behind: it is removed, and the error says so. A symbolic link is followed:
 * the file it points to is replaced, as {@code cp} would write it, and created when the link
 * dangles, as a shell's {@code >} would.
 *
 * <p>A process that exits while a write is under way cancels it and waits (at most 2 s) for
 * its partial file to be removed ({@link Sink#abandonAll}). A process killed outright (kill -9,
 * a crash) cannot remove its partial file. The next
 * write to the same target removes such leftovers: a {@code .part} whose name says it was made
 * on this host (TAG: the host name and PID namespace) by a process that no longer runs; it
 * logs each one removed or left alone (the tools show these lines with {@code -v}).
 *
 * <p>What the path <em>is</em> decides, never where it is: a device, a FIFO or a socket is
 * written in place, from its start, with no temporary name, and so is a regular file reached
 * through a process's open descriptor ({@code /dev/stdout}, {@code /dev/fd/N}), in append mode
 * as that descriptor would be; on failure their error says how many bytes were written. A
 * regular file under {@code /dev/shm} is a regular file like any other.
 *
 * <p>{@link #appending} makes a sink that appends instead, as a shell's {@code >>}: a regular
 * file is written in place at its end, created if missing; a stream that fails or is cancelled
 * adds nothing: the file is cut back to the length it had, or removed when this write created
 * it. Special files and descriptors' files are written in place as above, at their end.
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

    private static final Logger log = Loggers.getLogger(FileSink.class);
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFCHR = 0020000;
    private static final Path DEV_NULL = Path.of("/dev/null");

    private final Path path;
    private final Plan plan;
    private final SinkOptions options;

    /**
     * How the path is written.
     *
     * @param target  the file operated on: the path with symbolic links resolved
     * @param inPlace written in place rather than through a temporary file
     * @param append  in place, at the end (a descriptor's file) rather than from the start
     * @param syncable in place, something fsync applies to (a regular file, a block device)
     * @param cutBack  in place, appending to a regular file named by the path: on failure it is
     *                 cut back to its old length, or removed if the write created it
     */
    private record Plan(Path target, boolean inPlace, boolean append, boolean syncable, boolean cutBack) {

        /** Through a temporary file beside {@code target}, renamed on success. */
        static Plan replace(Path target) {
            return new Plan(target, false, false, false, false);
        }

        /** At the end of the regular file {@code target}, cut back on failure. */
        static Plan appendTo(Path target) {
            return new Plan(target, true, true, true, true);
        }
    }

    private FileSink(Path path, Plan plan, SinkOptions options) {
        this.path = path;
        this.plan = plan;
        this.options = options;
    }

    /** {@link #of(Path, SinkOptions)} with default options. */
    public static FileSink of(Path path) {
        return of(path, SinkOptions.defaults());
    }

    /**
     * A sink that writes the file at {@code path}. Checks now that the path is not a directory
     * and can be written: a file can be created in its directory (one is, and removed at once),
     * or, for a file written in place, the file may be written; so a command fails before any
     * stream arrives. The file itself is created when {@link #write} is subscribed.
     *
     * @throws ConnectorException (SINK_FAILED) with a one-line message otherwise
     */
    public static FileSink of(Path path, SinkOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        return new FileSink(path, plan(path, false), options);
    }

    /**
     * A sink that appends to the file at {@code path} (a shell's {@code >>}), creating it if
     * missing. Checks now what {@link #of(Path, SinkOptions)} checks; an existing regular file
     * must be writable.
     *
     * @throws ConnectorException (SINK_FAILED) with a one-line message otherwise
     */
    public static FileSink appending(Path path, SinkOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        return new FileSink(path, plan(path, true), options);
    }

    private static Plan plan(Path path, boolean append) {
        Path abs;
        try {
            abs = StandardStreams.resolve(path).toAbsolutePath();  // a served call's /dev/stdout: its caller's
        } catch (StandardStreams.NotPassed e) {
            throw ConnectorException.sink(Reason.IO, "cannot write " + path + ": " + e.getMessage(), e);
        }
        try {
            abs = danglingTarget(abs);
        } catch (IOException e) {
            throw ConnectorException.sink(IoErrors.classify(e), "cannot write " + path + ": "
                    + IoErrors.phrase(IoErrors.classify(e), e), e);
        }
        if (Files.isDirectory(abs)) {
            throw ConnectorException.sink(Reason.NOT_A_FILE, "cannot write " + path + ": is a directory", null);
        }
        try {
            if (Files.exists(abs)) {
                if (!Files.isRegularFile(abs)) {
                    // A device, FIFO or socket: nothing to rename over.
                    checkWritable(path, abs);
                    return new Plan(abs, true, append, isBlockDevice(abs), false);
                }
                Path real = throughLinks(abs);
                if (real == null) {
                    // An open descriptor's file (/dev/stdout > file): write it as the descriptor would.
                    checkWritable(path, abs);
                    return new Plan(abs, true, true, true, false);
                }
                if (append) {
                    checkWritable(path, real);
                    return Plan.appendTo(real);
                }
                checkCreatable(path, real);
                return Plan.replace(real);
            }
        } catch (IOException e) {
            throw ConnectorException.sink(IoErrors.classify(e), "cannot write " + path + ": "
                    + IoErrors.phrase(IoErrors.classify(e), e), e);
        }
        Path dir = abs.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw ConnectorException.sink(Reason.NOT_FOUND, "cannot write " + path + ": directory " + dir
                    + " does not exist", null);
        }
        checkCreatable(path, abs);
        return append ? Plan.appendTo(abs) : Plan.replace(abs);
    }

    /**
     * Where a dangling symbolic link {@code abs} points (through a chain of links), which is
     * what a shell's {@code >} or {@code >>} creates; {@code abs} itself when it is no link or
     * its target exists. A loop of links is left to fail when opened, as it would in a shell.
     */
    private static Path danglingTarget(Path abs) throws IOException {
        if (!Files.isSymbolicLink(abs) || Files.exists(abs)) {
            return abs;
        }
        Path p = abs;
        for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
            p = p.getParent().toRealPath().resolve(Files.readSymbolicLink(p));
        }
        return p;
    }

    /**
     * The real path of the regular file {@code abs} names, following symbolic links; null when
     * a link on the way is a process's open descriptor (a link in procfs, as /dev/stdout leads to).
     */
    private static Path throughLinks(Path abs) throws IOException {
        Path p = abs;
        for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
            Path dir = p.getParent().toRealPath();
            if ("proc".equals(Files.getFileStore(dir).type())) {
                return null;
            }
            p = dir.resolve(Files.readSymbolicLink(p));
        }
        return p.toRealPath();
    }

    /** Fails now, before any stream, when the file {@code what}, written in place, is not writable. */
    private static void checkWritable(Path path, Path what) {
        if (!Files.isWritable(what)) {
            throw ConnectorException.sink(Reason.PERMISSION_DENIED, "cannot write " + path + ": permission denied", null);
        }
    }

    /**
     * Fails now, before any stream, when no file can be created in {@code dir}: creating one is
     * the only reliable test (root, ACLs, read-only mounts), and it is removed at once.
     */
    private static void checkCreatable(Path path, Path target) {
        try {
            Files.delete(Files.createFile(PartFiles.next(target)));
        } catch (IOException | SecurityException e) {
            Reason r = IoErrors.classify(e);
            throw ConnectorException.sink(r, "cannot write " + path + ": " + IoErrors.phrase(r, e), e);
        }
    }

    /**
     * Whether {@code p} is the null device: a character device with /dev/null's numbers, under
     * whatever name (a container's or a test's own node, made with mknod, is the same device).
     */
    private static boolean isNullDevice(Path p) {
        try {
            return ((Integer) Files.getAttribute(p, "unix:mode") & S_IFMT) == S_IFCHR
                    && Files.getAttribute(p, "unix:rdev").equals(Files.getAttribute(DEV_NULL, "unix:rdev"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return p.equals(DEV_NULL);
        }
    }

    private static boolean isBlockDevice(Path p) {
        try {
            return ((Integer) Files.getAttribute(p, "unix:mode") & S_IFMT) == S_IFBLK;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** This sink with other options. */
    public FileSink withOptions(SinkOptions options) {
        return new FileSink(path, plan, Objects.requireNonNull(options));
    }

    /** The file written. */
    public Path path() {
        return path;
    }

    /**
     * Whether the file is written in place (a special file, a descriptor's file, an appending
     * sink) rather than through a temporary file.
     */
    public boolean inPlace() {
        return plan.inPlace();
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        Objects.requireNonNull(data, "data");
        return Mono.defer(() -> WriteLoop.write(plan.cutBack()
                ? new Append(path, plan.target(), options.fsync())
                : plan.inPlace()
                ? new InPlace(path, plan, options.fsync() && plan.syncable())
                : new TempThenRename(path, plan.target(), options.fsync()), data, options));
    }

    @Override
    public String describe() {
        return path.toString();
    }

    @Override
    public String toString() {
        return "FileSink[" + path + (plan.cutBack() ? ", appending" : plan.inPlace() ? ", in place" : "") + "]";
    }

    /** Writes a temporary file next to the target and renames it on success. */
    private static final class TempThenRename implements WriteTarget {

        private final Path shown;
        private final Path target;
        private final boolean fsync;
        private Path temp;
        private FileChannel channel;
        private long position;

        TempThenRename(Path shown, Path target, boolean fsync) {
            this.shown = shown;
            this.target = target;
            this.fsync = fsync;
        }

        @Override
        public void open() throws IOException {
            PartFiles.removeStale(target, log);
            Path t = PartFiles.next(target);
            channel = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            temp = t;
            try {
                if (Files.isRegularFile(target)) {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(target);
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
                try (FileChannel d = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
                    d.force(true);
                }
            }
            return shown.toString();
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
                return channel == null ? "nothing was written" : shown + " was written but could not be synced";
            }
            try {
                Files.deleteIfExists(temp);
                return "partial file removed, " + shown + " left unchanged";
            } catch (IOException e) {
                return "the partial file " + temp + " could not be removed (" + IoErrors.text(e) + ")";
            }
        }

        @Override
        public String describe() {
            return shown.toString();
        }
    }

    /** Appends to a regular file; on failure cuts it back to its old length, or removes it if it was created here. */
    private static final class Append implements WriteTarget {

        private final Path shown;
        private final Path target;
        private final boolean fsync;
        private FileChannel channel;
        private boolean created;
        private long start;

        Append(Path shown, Path target, boolean fsync) {
            this.shown = shown;
            this.target = target;
            this.fsync = fsync;
        }

        @Override
        public void open() throws IOException {
            try {
                channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
                created = true;
            } catch (FileAlreadyExistsException e) {
                channel = FileChannel.open(target, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            }
            start = channel.size();
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                channel.write(src);
            }
        }

        @Override
        public String commit() throws IOException {
            if (fsync) {
                channel.force(true);
            }
            channel.close();
            return shown.toString();
        }

        @Override
        public String abort() {
            if (channel == null) {
                return "nothing was written";
            }
            try {
                if (created) {
                    channel.close();
                    Files.deleteIfExists(target);
                    return shown + " removed";
                }
                channel.truncate(start);
                channel.close();
                return "what was appended was removed, " + shown + " left as it was (" + start + " bytes)";
            } catch (IOException e) {
                return "what was appended to " + shown + " could not be removed (" + IoErrors.text(e) + ")";
            }
        }

        @Override
        public String describe() {
            return shown.toString();
        }
    }

    /** Writes a special file in place, sequentially. */
    private static final class InPlace implements WriteTarget {

        private final Path path;
        private final Plan plan;
        private final boolean fsync;
        private FileChannel channel;
        private long written;

        InPlace(Path path, Plan plan, boolean fsync) {
            this.path = path;
            this.plan = plan;
            this.fsync = fsync;
        }

        @Override
        public void open() throws IOException {
            // A FIFO blocks here until a reader comes; this runs on the sink's scheduler.
            channel = plan.append()
                    ? FileChannel.open(plan.target(), StandardOpenOption.WRITE, StandardOpenOption.APPEND)
                    : FileChannel.open(plan.target(), StandardOpenOption.WRITE);
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                written += channel.write(src);
            }
        }

        @Override
        public String commit() throws IOException {
            if (fsync) {
                channel.force(true);
            }
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
            // What went to /dev/null is gone: no news (rdpipe ends a part's discarded output there).
            return isNullDevice(plan.target()) ? "" : written + " bytes were already written to " + path;
        }

        @Override
        public String describe() {
            return path.toString();
        }
    }
}
