package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.TreeFormat.malformed;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.WriteTarget;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine of {@link TreeSink}: applies a tree stream's records to the destination, one call
 * at a time on the sink's write loop.
 *
 * <p><b>Hostile senders.</b> Every entry's path is checked by the parser (relative, no
 * {@code ..}, {@code .} or empty components, no NUL). Here, every entry's parent must be a
 * directory that this stream declared earlier and that this sink made sure, with a
 * {@code NOFOLLOW_LINKS} check when it was declared, is a real directory (it created it, or
 * found one); and no later entry may take a declared directory's path. So no entry can be
 * reached through a symbolic link, whether the stream made it or it was there: the stream
 * cannot name a path below a link, and it cannot turn a declared directory into one. In a
 * directory this sink created itself, files and symbolic links are created under their own name
 * ({@code O_EXCL}: there is nothing to replace, and no link is followed); elsewhere under a
 * fresh temporary name ({@code O_EXCL}) renamed into place, which replaces a link rather than
 * following it. Hard links may only name files this stream wrote.
 * Anything else that breaks the format's rules fails the whole stream with a PROTOCOL error
 * naming the entry. (The checks are made by path: a local user who can write into the
 * destination while it is being written is not part of this threat model.)
 *
 * <p>Failures that concern one entry (a file the sender could not read, a name this file system
 * refuses, a directory in the way) fail that entry only; a full disk fails the stream.
 *
 * <p><b>Writers.</b> A file of at most {@link #QUEUED_MAX} bytes is gathered in a pooled buffer and, once
 * its end is verified, written, given its mode and time and put in place by one of the sink's
 * writer threads ({@link TreeSinkOptions#writerThreads()}) while this thread parses on: small
 * files cost system calls (create, write, close, times) rather than bandwidth, and independent
 * files can make them at once. Larger files are written here as their data arrives. What the
 * writers finish is reported on this thread ({@link #drain}); an entry whose path a queued file
 * holds, a hard link, deletion and the directories' times wait for the writers first, so the
 * result is the one of writing every file in stream order.
 */
final class TreeWriter implements WriteTarget, TreeParser.Handler {

    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final ByteBuffer ZERO = ByteBuffer.allocateDirect(1).asReadOnlyBuffer();
    /** Zeros for the holes of a gathered file (at most {@link #QUEUED_MAX} bytes). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();
    /** The largest file a writer thread writes (one pooled buffer); larger ones are written as their data arrives. */
    static final int QUEUED_MAX = 64 * 1024;
    /** The most small files one stream holds gathered or queued: 16 MiB of buffers. */
    static final int QUEUED_FILES = 256;
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    private final Path dest;
    private final TreeSinkOptions options;
    private final TreeListener listener;
    private final TreeParser parser = new TreeParser(this);
    private final FileTime started = FileTime.from(java.time.Instant.now());

    // Stream state.
    private boolean rootIsDirectory;
    /** The root only holds the entries: its mode and time are left alone, deletion does not look into it. */
    private boolean container;
    private int nextId;
    private boolean ended;
    /** The size of the destination's file system, the bound on any file's size; -1 before it is known. */
    private long capacity = -1;
    private final Set<String> directories = new HashSet<>();
    private final Set<String> failedDirectories = new HashSet<>();
    /** Directories this sink created: no file in them is anyone else's. */
    private final Set<String> createdDirectories = new HashSet<>();
    private final List<TreeEntry> directoryOrder = new ArrayList<>();
    private final Map<Integer, OpenFile> open = new HashMap<>();
    /** Files later entries may hard-link to: path, and whether it arrived (state 1). */
    private final PackedSet linkTargets = new PackedSet();
    /** With delete: each listed directory's number (the order it was listed in) ... */
    private final Map<String, Integer> directoryIds = new HashMap<>();
    /** ... and the entry names in it, each as that number (4 bytes) and the name's bytes. */
    private final PackedSet names = new PackedSet();
    /**
     * The most bytes this stream's own state may hold (directories, link targets, names; see
     * {@link #checkHeld}): past it the stream is refused, where it would end the process out of memory.
     */
    private final long maxHeld;
    /** The bytes the directories' paths and sets hold. */
    private long directoryBytes;
    private final Set<PosixFilePermission>[] permissions = newPermissionCache();
    private volatile Set<PosixFilePermission> createdPermissions;

    // Writer threads (see the class comment), started with the first small file.
    private ExecutorService writers;
    private final Semaphore budget = new Semaphore(QUEUED_FILES);
    /** Direct buffers of QUEUED_MAX bytes, reused: no zeroing, no garbage, no copy into a direct buffer on write. */
    private final Queue<ByteBuffer> buffers = new ConcurrentLinkedQueue<>();
    private final BlockingQueue<Written> written = new LinkedBlockingQueue<>();
    /** Paths of the files queued and not drained yet. */
    private final Set<String> queued = new HashSet<>();
    private long senderOkBytes;
    private long senderFailures;

    // Report.
    private long files;
    private long directoryCount;
    private long symlinks;
    private long hardLinks;
    private long unchanged;
    private long bytes;
    private long deleted;
    private long failureCount;
    private final List<TreeFailure> failures = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private long warningCount;
    private boolean deletionSkipped;

    TreeWriter(Path dest, TreeSinkOptions options) {
        this(dest, options, defaultMaxHeld());
    }

    TreeWriter(Path dest, TreeSinkOptions options, long maxHeld) {
        this.dest = dest;
        this.options = options;
        this.listener = options.listener();
        this.maxHeld = maxHeld;
    }

    /** What a directory costs besides its path: set entries, its entry in the order, its id. */
    static final int DIRECTORY_BYTES = 320;

    /** The default bound on what a stream's state holds: a quarter of the heap (48 MiB at -Xmx192m). */
    static long defaultMaxHeld() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    TreeReport report() {
        return new TreeReport(dest.toString(), files, directoryCount, symlinks, hardLinks, unchanged, bytes, deleted,
                failureCount, failures, warnings, warningCount, deletionSkipped);
    }

    // ---- WriteTarget -----------------------------------------------------------------------

    @Override
    public void open() throws IOException {
        Path parent = dest.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new NoSuchFileException(parent.toString(), null, "no such directory");
        }
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        parser.feed(src);
        drain();
    }

    @Override
    public String commit() throws IOException {
        parser.finish();
        awaitWriters();
        stopWriters();
        if (options.delete()) {
            if (failureCount == 0) {
                deleteExtraneous();
            } else {
                deletionSkipped = true;
            }
        }
        // Children before parents: the reverse of the stream's order.
        for (int i = directoryOrder.size() - 1; i >= 0; i--) {
            TreeEntry d = directoryOrder.get(i);
            Path dir = resolve(d.path());
            try {
                Files.setPosixFilePermissions(dir, permissions(d.mode()));
                times(dir, d.mtimeNanos(), false);
                if (options.io().fsync()) {
                    sync(dir);
                }
            } catch (IOException e) {
                fatalIfFull(d.path(), e);
                failed(d.path(), "cannot set its mode and time: " + phrase(e));
            }
        }
        return dest.toString();
    }

    @Override
    public String abort() {
        int removed = 0;
        String through = "";
        for (OpenFile f : open.values()) {
            if (f.through && f.channel != null) {
                through = "; what arrived was already written through to " + f.target + ", which keeps it";
            }
            if (f.discard()) {
                removed++;
            }
        }
        open.clear();
        stopWriters();
        for (Written w; (w = written.poll()) != null; ) {
            if (w.failure == null) {
                files++;
            }
        }
        removeEmptyCreatedDirectories();
        String kept = files + hardLinks + symlinks > 0
                ? "; the " + (files + hardLinks + symlinks) + " files and links completed before it are in place" : "";
        return (removed > 0 ? "partial files removed" : "no partial file left") + kept + through;
    }

    /**
     * After a failed stream: the directories this copy created and left empty go, deepest first
     * (the destination itself too, if it made it), so that a refused or cut stream leaves no
     * empty tree behind; a directory that holds anything stays.
     */
    private void removeEmptyCreatedDirectories() {
        List<String> made = new ArrayList<>(createdDirectories);
        made.sort(Comparator.comparingInt(String::length).reversed());
        for (String path : made) {
            Path dir = resolve(path);
            try {
                if (Files.isDirectory(dir, NOFOLLOW)) {
                    Files.delete(dir);
                }
            } catch (IOException | RuntimeException x) {
                // Not empty, or gone: either way not ours to remove.
            }
        }
    }

    @Override
    public String describe() {
        return dest.toString();
    }

    // ---- records ---------------------------------------------------------------------------

    @Override
    public void header(int flags) throws IOException {
        if ((flags & TreeFormat.FLAG_LISTING) != 0) {
            throw malformed("a listing where a tree with contents was expected");
        }
    }

    @Override
    public void entry(int id, TreeEntry e, int flags) throws IOException {
        String where = "entry " + (id & 0xffffffffL) + " '" + e.path() + "'";
        if (ended) {
            throw malformed(where + " after the END record");
        }
        if (id != nextId) {
            throw malformed(where + " out of sequence (expected entry " + nextId + ")");
        }
        nextId++;
        checkHeld(where);   // what the entries before this one left held: each adds at most a few KiB
        String path = e.path();
        if (id == 0) {
            if (!path.isEmpty()) {
                throw malformed("the first entry must be the root (an empty path), not '" + path + "'");
            }
            rootIsDirectory = e.kind() == TreeEntry.Kind.DIRECTORY;
            container = (flags & TreeFormat.F_CONTAINER) != 0;
            if (e.kind() == TreeEntry.Kind.HARD_LINK) {
                throw malformed("the root is a hard link");
            }
        } else {
            if (path.isEmpty()) {
                throw malformed(where + ": only the first entry may be the root");
            }
            if (!rootIsDirectory) {
                throw malformed(where + ": the root is not a directory, so it is the only entry");
            }
            String parent = TreeFormat.parent(path);
            if (directories.contains(path) || failedDirectories.contains(path)) {
                throw malformed(where + " takes the path of a directory listed earlier");
            }
            if (!directories.contains(parent)) {
                if (failedDirectories.contains(parent)) {
                    failedDirectories.add(path);   // so that its own entries fail with it
                    directoryBytes += DIRECTORY_BYTES + 2L * path.length();
                    skip(id, e, flags, "not written: its directory could not be created");
                    return;
                }
                throw malformed(where + ": its directory '" + parent + "' was not listed before it"
                        + " (an entry may not be reached through a symbolic link or a missing directory)");
            }
            if (options.delete()) {
                names.put(nameKey(directoryIds.get(parent), TreeFormat.utf8(e.name())), 1);
            }
            if (queued.contains(path)) {
                awaitWriters();   // this entry replaces a file a writer may still be placing
            }
        }
        Path target;
        try {
            target = resolve(path);
        } catch (InvalidPathException x) {
            if (e.kind() == TreeEntry.Kind.DIRECTORY) {
                failedDirectories.add(path);
                directoryBytes += DIRECTORY_BYTES + 2L * path.length();
            }
            skip(id, e, flags, "its name cannot be written in this system's file-name encoding ("
                    + System.getProperty("sun.jnu.encoding") + "); use a UTF-8 locale");
            return;
        }
        switch (e.kind()) {
            case DIRECTORY -> directory(e, target);
            case FILE -> {
                if ((flags & TreeFormat.F_DATA) != 0) {
                    // A device or FIFO written through is not bounded by the file system it sits in.
                    boolean through = path.isEmpty() && writtenThrough(target) != 0;
                    String tooLarge = through ? null : tooLarge(e.size());
                    if (tooLarge != null) {
                        if (path.isEmpty()) {
                            // The copy is that file: it fails as a whole, as a file it cannot write would.
                            throw ConnectorException.sink(ConnectorException.Reason.NO_SPACE,
                                    "cannot write " + dest + ": " + tooLarge, null);
                        }
                        skip(id, e, flags, "not written: " + tooLarge);
                        return;
                    }
                    OpenFile f = new OpenFile(e, target, flags, false);
                    open(id, f);
                    f.gather();
                } else {
                    keep(e, target, flags);
                }
            }
            case SYMLINK -> symlink(e, target);
            case HARD_LINK -> hardLink(e, target);
        }
    }

    /**
     * Why a file of {@code size} bytes cannot be written here, or null: larger than the whole
     * file system of the destination. A sender may declare any size and then send it as one
     * hole (a few bytes on the wire); no file system takes more than it holds, and a sparse file
     * larger than its file system is refused too, rather than trusted.
     */
    private String tooLarge(long size) {
        if (capacity < 0) {
            capacity = Long.MAX_VALUE;   // unknown: the file system's own errors apply
            Path p = dest.toAbsolutePath();
            while (p != null && !Files.exists(p, NOFOLLOW)) {
                p = p.getParent();
            }
            try {
                long total = p == null ? 0 : Files.getFileStore(p).getTotalSpace();
                if (total > 0) {
                    capacity = total;
                }
            } catch (IOException | RuntimeException x) {
                // Unknown, as above.
            }
        }
        return size <= capacity ? null
                : "it is " + size + " bytes, more than the destination's whole file system holds (" + capacity + " bytes)";
    }

    /** An entry that fails here before anything is written: its contents, if any, are read and dropped. */
    private void skip(int id, TreeEntry e, int flags, String reason) throws IOException {
        failed(e.path(), reason);
        linkTargets(e, flags, false);
        if ((flags & TreeFormat.F_DATA) != 0) {
            open(id, new OpenFile(e, null, flags, true));
        }
    }

    @Override
    public void data(int id, ByteBuffer data) throws IOException {
        OpenFile f = file(id, "DATA");
        int n = data.remaining();
        f.grow(n);
        f.write(data);
    }

    @Override
    public void hole(int id, long count) throws IOException {
        OpenFile f = file(id, "HOLE");
        f.grow(count);
        f.skip(count);
    }

    @Override
    public void fileEnd(int id, String failure, long length, int crc) throws IOException {
        OpenFile f = file(id, "FILE_END");
        open.remove(id);
        TreeEntry e = f.entry;
        if (failure != null) {
            senderFailures++;
            f.discard();
            linkTarget(f, false);
            if (!f.ignored) {
                failed(e.path(), f.kept(failure));
            }
            return;
        }
        senderOkBytes = add(senderOkBytes, length, "the bytes of the files sent");
        if (length != f.received || length != e.size()) {
            f.discard();
            throw malformed("file '" + e.path() + "': its header says " + e.size() + " bytes, "
                    + f.received + " arrived, its end says " + length);
        }
        if (f.ignored) {
            return;   // reported when its entry came
        }
        if (f.localFailure != null) {
            f.discard();
            linkTarget(f, false);
            failed(e.path(), f.kept(f.localFailure));
            return;
        }
        if (f.crc.value() != crc) {
            f.discard();
            linkTarget(f, false);
            failed(e.path(), f.kept("its CRC32C does not match: the data arrived damaged"));
            return;
        }
        f.commit();
    }

    @Override
    public void notice(boolean error, String path, String message) {
        if (error) {
            senderFailures++;
            failed(path, message);
        } else {
            warn(path, message);
        }
    }

    @Override
    public void end(long entries, long okBytes, long senderFailureCount) throws IOException {
        if (!open.isEmpty()) {
            throw malformed("END while " + open.size() + " files are still open (entry '"
                    + open.values().iterator().next().entry.path() + "')");
        }
        if (entries != nextId || okBytes != senderOkBytes || senderFailureCount != senderFailures) {
            throw malformed("END counts " + entries + " entries, " + okBytes + " bytes and " + senderFailureCount
                    + " failures; the stream had " + nextId + ", " + senderOkBytes + " and " + senderFailures);
        }
        if (nextId == 0) {
            throw malformed("the stream has no root entry");
        }
        ended = true;
    }

    // ---- entries ---------------------------------------------------------------------------

    private void directory(TreeEntry e, Path target) throws IOException {
        String path = e.path();
        try {
            BasicFileAttributes a = attributes(path.isEmpty() ? target : null, target);
            if (a == null) {
                Files.createDirectory(target);
                createdDirectories.add(path);
            } else if (!a.isDirectory()) {
                if (path.isEmpty()) {
                    throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + dest
                            + ": it exists and is not a directory", null);
                }
                // A file or link in the way of a directory is replaced, as rsync does.
                Files.delete(target);
                Files.createDirectory(target);
                createdDirectories.add(path);
            }
        } catch (IOException x) {
            fatalIfFull(path, x);
            if (path.isEmpty()) {
                throw x;
            }
            failedDirectories.add(path);
            directoryBytes += DIRECTORY_BYTES + 2L * path.length();
            failed(path, "cannot create this directory: " + phrase(x));
            return;
        }
        directories.add(path);
        directoryBytes += DIRECTORY_BYTES + 2L * path.length();
        if (options.delete()) {
            directoryIds.put(path, directoryIds.size());
        }
        if (path.isEmpty() && container) {
            return;   // not part of the copy: no mode, no time, no deletion, not counted
        }
        directoryOrder.add(e);
        directoryCount++;
        listener.onDone(e, 0);
    }

    /** A file the sender found current (sync): kept, its mode and time brought up to date. */
    private void keep(TreeEntry e, Path target, int flags) throws IOException {
        try {
            PosixFileAttributes a = Files.readAttributes(target, PosixFileAttributes.class, NOFOLLOW);
            if (!a.isRegularFile() || a.size() != e.size()) {
                failed(e.path(), "was to be kept as it is, but changed at the destination since it was listed");
                linkTargets(e, flags, false);
                return;
            }
            if (!a.permissions().equals(permissions(e.mode()))) {
                Files.setPosixFilePermissions(target, permissions(e.mode()));
            }
            if (a.lastModifiedTime().to(TimeUnit.NANOSECONDS) != e.mtimeNanos()) {
                times(target, e.mtimeNanos(), false);
            }
        } catch (IOException x) {
            fatalIfFull(e.path(), x);
            failed(e.path(), "was to be kept as it is, but " + phrase(x));
            linkTargets(e, flags, false);
            return;
        }
        unchanged++;
        linkTargets(e, flags, true);
        listener.onKept(e);
    }

    private void symlink(TreeEntry e, Path target) throws IOException {
        if (e.path().isEmpty() && writtenThrough(target) != 0) {
            // Renamed over it, the link would replace the device or FIFO the user named.
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + dest
                    + ": a symbolic link cannot be written through a device or FIFO", null);
        }
        Path temp = null;
        try {
            if (fresh(e.path()) && createDirectly(target, e)) {
                return;
            }
            if (Files.isSymbolicLink(target) && Files.readSymbolicLink(target).toString().equals(e.link())) {
                times(target, e.mtimeNanos(), true);
            } else {
                temp = temporary(target);
                Files.createSymbolicLink(temp, target.getFileSystem().getPath(e.link()));
                times(temp, e.mtimeNanos(), true);
                into(temp, target);
            }
        } catch (IOException | InvalidPathException x) {
            deleteQuietly(temp);
            fatalIfFull(e.path(), x);
            failed(e.path(), "cannot make this symbolic link: " + phrase(x));
            return;
        }
        symlinks++;
        listener.onDone(e, 0);
    }

    /**
     * Creates a link under its own name in a directory this sink created; false when that name
     * is taken (the stream listed it before), and the link goes the usual way.
     */
    private boolean createDirectly(Path target, TreeEntry e) throws IOException {
        try {
            Files.createSymbolicLink(target, target.getFileSystem().getPath(e.link()));
        } catch (FileAlreadyExistsException taken) {
            return false;
        }
        try {
            times(target, e.mtimeNanos(), true);
        } catch (IOException x) {
            deleteQuietly(target);
            throw x;
        }
        symlinks++;
        listener.onDone(e, 0);
        return true;
    }

    private void hardLink(TreeEntry e, Path target) throws IOException {
        awaitWriters();   // the file it names may still be with a writer
        int state = linkTargets.state(TreeFormat.utf8(e.link()));
        if (state < 0) {
            throw malformed("hard link '" + e.path() + "' names '" + e.link()
                    + "', which is not a file this stream wrote");
        }
        if (state == 0) {
            failed(e.path(), "not linked: '" + e.link() + "', the file it is a name of, did not arrive");
            return;
        }
        Path temp = null;
        try {
            Path file = resolve(e.link());
            if (!sameFile(target, file)) {
                temp = temporary(target);
                Files.createLink(temp, file);
                // (rename() of two names of one file does nothing: hence the check above)
                into(temp, target);
            }
        } catch (IOException x) {
            deleteQuietly(temp);
            fatalIfFull(e.path(), x);
            failed(e.path(), "cannot make this hard link: " + phrase(x));
            return;
        }
        hardLinks++;
        listener.onDone(e, 0);
    }

    private void open(int id, OpenFile f) throws IOException {
        if (open.size() >= options.maxOpenFiles()) {
            throw malformed("more than " + options.maxOpenFiles() + " files open at once (entry '"
                    + f.entry.path() + "')");
        }
        open.put(id, f);
    }

    private OpenFile file(int id, String record) throws IOException {
        OpenFile f = open.get(id);
        if (f == null) {
            throw malformed(record + " for file " + (id & 0xffffffffL) + ", which is not open");
        }
        return f;
    }

    /**
     * A file being received. A small one is gathered in memory and handed to a writer thread on
     * its verified end; a larger one is written as its data arrives. Either is created under its
     * own name in a directory this sink created, else under a temporary name renamed on its
     * verified end.
     */
    private final class OpenFile {
        final TreeEntry entry;
        final Path target;
        final int flags;
        final boolean ignored;
        /** Whether its directory is one this sink created (decided here: the writers do not read the set). */
        final boolean fresh;
        /**
         * The tree's only file, whose destination is a device or FIFO: written through it in
         * order, as cp writes one, never replaced (see {@link #writtenThrough}).
         */
        final boolean through;
        /** With {@code through}: whether it is a block device, which fsync applies to. */
        final boolean syncable;
        final Crc32c.Running crc = new Crc32c.Running();
        /** What is being written: the target, or a temporary name; null before the first write. */
        Path path;
        FileChannel channel;
        /** A small file's contents, until a writer has written them. */
        ByteBuffer gathered;
        long received;
        boolean endsInHole;
        String localFailure;

        OpenFile(TreeEntry entry, Path target, int flags, boolean ignored) {
            this.entry = entry;
            this.target = target;
            this.flags = flags;
            this.ignored = ignored;
            this.fresh = !ignored && fresh(entry.path());
            int special = ignored || !entry.path().isEmpty() ? 0 : writtenThrough(target);
            this.through = special != 0;
            this.syncable = special == S_IFBLK;
            if (ignored) {
                localFailure = "not written";
            }
        }

        /** Makes this a file a writer thread writes, if it is small and the budget allows. */
        void gather() throws IOException {
            if (options.writerThreads() == 0 || entry.size() > QUEUED_MAX || through) {
                return;
            }
            if (reserve()) {
                ByteBuffer b = buffers.poll();
                gathered = (b != null ? b : ByteBuffer.allocateDirect(QUEUED_MAX)).clear().limit((int) entry.size());
            }
        }

        void grow(long n) throws IOException {
            // received <= size always holds, so this cannot overflow as received + n could.
            if (n > entry.size() - received) {
                discard();
                throw malformed("file '" + entry.path() + "': more data than the " + entry.size()
                        + " bytes its header says");
            }
        }

        void write(ByteBuffer data) throws IOException {
            int start = data.position();
            crc.update(data);
            data.position(start);
            long at = received;
            received += data.remaining();
            endsInHole = false;
            if (localFailure != null) {
                return;
            }
            if (gathered != null) {
                gathered.put((int) at, data, data.position(), data.remaining());
                data.position(data.limit());
                return;
            }
            try {
                create();
                while (data.hasRemaining()) {
                    // A FIFO has no positions: written through, the bytes go in order.
                    at += through ? channel.write(data) : channel.write(data, at);
                }
            } catch (IOException x) {
                fatalIfFull(entry.path(), x);
                localFailure = "cannot write it: " + phrase(x);
                closeAndDelete();
            }
        }

        /**
         * A hole of {@code count} zeros: O(log count) work, whatever the count. Nothing is
         * written; the next write past it, or the commit, leaves it as a hole in the file.
         */
        void skip(long count) {
            crc.zeros(count);
            if (through && localFailure == null) {
                writeZeros(count);
            }
            if (gathered != null) {
                for (long at = received; at < received + count; ) {
                    int n = (int) Math.min(received + count - at, ZEROS.capacity());
                    gathered.put((int) at, ZEROS, 0, n);   // a reused buffer: the zeros are written
                    at += n;
                }
            }
            received += count;
            endsInHole = true;
        }

        /** Written through, a hole is its zeros: a device or FIFO cannot skip ahead. */
        private void writeZeros(long count) {
            try {
                create();
                for (long left = count; left > 0; ) {
                    ByteBuffer z = ZEROS.slice(0, (int) Math.min(left, ZEROS.capacity()));
                    left -= z.remaining();
                    while (z.hasRemaining()) {
                        channel.write(z);
                    }
                }
            } catch (IOException x) {
                fatalIfFull(entry.path(), x);
                localFailure = "cannot write it: " + phrase(x);
                closeAndDelete();
            }
        }

        private void create() throws IOException {
            if (channel == null && through) {
                // No temporary name, no truncation, no rename: the device or FIFO itself, opened
                // for writing (a FIFO waits here for its reader, as it would for cp).
                channel = FileChannel.open(target, StandardOpenOption.WRITE);
                return;
            }
            if (channel == null) {
                Output out = createFile(target, fresh);
                path = out.path();
                channel = out.channel();
            }
        }

        /** Queues a gathered file for a writer; writes out any other: mode, time, name. */
        void commit() throws IOException {
            if (gathered != null) {
                queue(this);
                return;
            }
            try {
                create();
                if (endsInHole && !through) {
                    // A hole at the end is not written: one zero byte gives the file its length.
                    channel.write(ZERO.duplicate(), received - 1);
                }
                if (options.io().fsync() && (!through || syncable)) {
                    channel.force(true);
                }
                channel.close();
                if (!through) {
                    // Written through, a device or FIFO keeps its own mode and times, as with cp.
                    place(path, target, entry);
                }
                path = null;
            } catch (IOException x) {
                closeAndDelete();
                fatalIfFull(entry.path(), x);
                linkTarget(this, false);
                failed(entry.path(), "cannot write it: " + phrase(x));
                return;
            }
            files++;
            bytes = add(bytes, received, "the bytes written");
            linkTarget(this, true);
            listener.onDone(entry, received);
        }

        /** {@code reason}, and for a file written through, that what it was given stays there. */
        String kept(String reason) {
            return through && channel != null
                    ? reason + "; what arrived before was already written through to " + target + ", which keeps it"
                    : reason;
        }

        /** Closes and removes what was written, or gives back a gathered file's budget; true when a file was there. */
        boolean discard() {
            if (gathered != null) {
                release(gathered);
                gathered = null;
            }
            boolean had = path != null;
            closeAndDelete();
            return had;
        }

        private void closeAndDelete() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // Removed next.
                }
            }
            deleteQuietly(path);
            path = null;
        }
    }

    /**
     * What the destination of a tree of one file is when it is written through rather than
     * replaced: {@link #S_IFCHR}, {@link #S_IFBLK} or {@link #S_IFIFO} for an existing character
     * device, block device or FIFO (a symbolic link to one followed, as cp follows it), else 0.
     * A socket cannot be written, and is not replaced either: the copy fails.
     */
    private int writtenThrough(Path target) {
        int type;
        try {
            type = (Integer) Files.getAttribute(target, "unix:mode") & S_IFMT;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException x) {
            return 0;   // missing (created as usual), or a system with no modes: no devices either
        }
        if (type == S_IFSOCK) {
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + dest
                    + ": it is a socket", null);
        }
        return type == S_IFCHR || type == S_IFBLK || type == S_IFIFO ? type : 0;
    }

    /**
     * Creates an empty file for {@code target}: under its own name when its directory is one
     * this sink created and the name is free (a name taken there was listed twice by the
     * stream, and is replaced as anywhere else), else under a fresh temporary name beside it.
     * Both exclusively: nothing is followed or overwritten. Any thread.
     */
    private static Output createFile(Path target, boolean fresh) throws IOException {
        if (fresh) {
            try {
                return new Output(target, FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
            } catch (FileAlreadyExistsException taken) {
                // Replaced as below.
            }
        }
        Path temp = temporary(target);
        return new Output(temp, FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    }

    /** A file just created, and where. */
    private record Output(Path path, FileChannel channel) {
    }

    /** Gives a written file its mode and time and, written under a temporary name, its name. Any thread. */
    private void place(Path file, Path target, TreeEntry entry) throws IOException {
        Set<PosixFilePermission> perms = permissions(entry.mode());
        Set<PosixFilePermission> created = createdPermissions;
        if (created == null) {
            created = Files.getPosixFilePermissions(file, NOFOLLOW);
            createdPermissions = created;
        }
        if (!perms.equals(created)) {
            Files.setPosixFilePermissions(file, perms);
        }
        times(file, entry.mtimeNanos(), false);
        if (!file.equals(target)) {
            into(file, target);
        }
    }

    // ---- writer threads --------------------------------------------------------------------

    /** What a writer thread did with a file: {@code failure} null when it is in place. */
    private record Written(OpenFile file, Exception failure) {
    }

    /**
     * Takes a place for a small file, waiting for the writers while they hold some; false when
     * files still arriving hold them all, and this one is written as its data arrives.
     */
    private boolean reserve() throws IOException {
        while (!budget.tryAcquire()) {
            if (queued.isEmpty()) {
                return false;
            }
            awaitOne();
        }
        return true;
    }

    private void queue(OpenFile f) throws IOException {
        if (writers == null) {
            int n = options.writerThreads();
            AtomicInteger count = new AtomicInteger();
            writers = new ThreadPoolExecutor(n, n, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "rdflux-tree-writer-" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        queued.add(f.entry.path());
        writers.execute(() -> written.add(writeGathered(f)));
    }

    /** On a writer thread: writes a gathered file and puts it in place, or removes what it wrote. */
    private Written writeGathered(OpenFile f) {
        Path path = null;
        try {
            Output out = createFile(f.target, f.fresh);
            path = out.path();
            try (FileChannel ch = out.channel()) {
                ByteBuffer b = f.gathered;
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                if (options.io().fsync()) {
                    ch.force(true);
                }
            }
            place(path, f.target, f.entry);
            return new Written(f, null);
        } catch (IOException | RuntimeException x) {
            deleteQuietly(path);
            return new Written(f, x);
        } finally {
            release(f.gathered);
            f.gathered = null;
        }
    }

    private void release(ByteBuffer b) {
        buffers.offer(b);
        budget.release();
    }

    /** Reports what the writers have finished. */
    private void drain() {
        for (Written w; (w = written.poll()) != null; ) {
            done(w);
        }
    }

    private void done(Written w) {
        OpenFile f = w.file();
        queued.remove(f.entry.path());
        if (w.failure() == null) {
            files++;
            bytes = add(bytes, f.received, "the bytes written");
            linkTarget(f, true);
            listener.onDone(f.entry, f.received);
        } else {
            fatalIfFull(f.entry.path(), w.failure());
            linkTarget(f, false);
            failed(f.entry.path(), "cannot write it: " + phrase(w.failure()));
        }
    }

    /** Waits until every queued file is in place or failed, and reports them. */
    private void awaitWriters() throws IOException {
        while (!queued.isEmpty()) {
            awaitOne();
        }
    }

    private void awaitOne() throws IOException {
        try {
            Written w;
            // No deadline: a writer is at a system call on a local file, as this thread would be.
            while ((w = written.poll(1, TimeUnit.SECONDS)) == null) {
                continue;
            }
            done(w);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while small files were being written");
        }
    }

    /**
     * Stops the writers once the files queued are in place: they arrived whole and verified,
     * so they stay, like the files written before a failure. Past a bound, the writers are
     * interrupted: a file being written then removes what it wrote, queued ones are dropped.
     */
    private void stopWriters() {
        if (writers == null) {
            return;
        }
        writers.shutdown();
        try {
            if (!writers.awaitTermination(30, TimeUnit.SECONDS)) {
                writers.shutdownNow();
                writers.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException x) {
            writers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void linkTarget(OpenFile f, boolean arrived) {
        linkTargets(f.entry, f.flags, arrived);
    }

    private void linkTargets(TreeEntry e, int flags, boolean arrived) {
        if ((flags & TreeFormat.F_LINK_TARGET) != 0) {
            linkTargets.put(TreeFormat.utf8(e.path()), arrived ? 1 : 0);
        }
    }

    /** The key of a name in the directory numbered {@code id}. */
    private static byte[] nameKey(int id, byte[] name) {
        byte[] key = new byte[4 + name.length];
        key[0] = (byte) (id >>> 24);
        key[1] = (byte) (id >>> 16);
        key[2] = (byte) (id >>> 8);
        key[3] = (byte) id;
        System.arraycopy(name, 0, key, 4, name.length);
        return key;
    }

    /**
     * Refuses the stream once what it made this sink hold passes {@link #maxHeld}: the paths of
     * its directories, the files hard links may name, and with deletion every entry's name.
     * Counted in bytes, not entries: long paths cost what they weigh.
     */
    private void checkHeld(String where) throws IOException {
        long held = directoryBytes + linkTargets.bytes() + names.bytes();
        if (held > maxHeld) {
            // The sender's path last: a long one is what the message's length limit cuts.
            throw malformed("writing this tree needs more than " + (maxHeld >> 20) + " MiB of memory here"
                    + " (the tree sink's limit, a quarter of the Java heap) for its directories, hard-link targets"
                    + (options.delete() ? " and names" : "") + ": raise the heap with RDFLUX_JAVA_OPTS=-Xmx<size>"
                    + " (e.g. -Xmx1g), or copy a smaller tree; at " + where);
        }
    }

    // ---- deletion --------------------------------------------------------------------------

    /** Removes what the listed directories hold and the stream did not list. */
    private void deleteExtraneous() throws IOException {
        for (TreeEntry d : directoryOrder) {
            int id = directoryIds.get(d.path());
            Path dir = resolve(d.path());
            List<Path> extra = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    String name = p.getFileName().toString();
                    if (!names.contains(nameKey(id, TreeFormat.utf8(name))) || !dir.resolve(name).equals(p)) {
                        extra.add(p);
                    }
                }
            } catch (IOException x) {
                failed(d.path(), "cannot list it to delete extraneous entries: " + phrase(x));
                continue;
            }
            for (Path p : extra) {
                try {
                    deleteTree(p);
                    deleted++;
                } catch (IOException x) {
                    fatalIfFull(dest.relativize(p).toString(), x);
                    failed(dest.relativize(p).toString(), "cannot delete it: " + phrase(x));
                }
            }
        }
    }

    /** Deletes a file, a link (not what it points to) or a whole directory. */
    private static void deleteTree(Path p) throws IOException {
        if (!Files.isDirectory(p, NOFOLLOW)) {
            Files.delete(p);
            return;
        }
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    // ---- helpers ---------------------------------------------------------------------------

    /** Whether the entry at {@code path} (not the root) is in a directory this sink created. */
    private boolean fresh(String path) {
        return !path.isEmpty() && createdDirectories.contains(TreeFormat.parent(path));
    }

    private Path resolve(String path) {
        return path.isEmpty() ? dest : dest.resolve(path);
    }

    /** The attributes of {@code target} without following a link (following one at the root), or null. */
    private static BasicFileAttributes attributes(Path root, Path target) throws IOException {
        try {
            return root != null ? Files.readAttributes(root, BasicFileAttributes.class)
                    : Files.readAttributes(target, BasicFileAttributes.class, NOFOLLOW);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Whether {@code a} (not followed if a link) is the file {@code b} already. */
    private static boolean sameFile(Path a, Path b) throws IOException {
        BasicFileAttributes x = attributes(null, a);
        return x != null && x.fileKey() != null
                && x.fileKey().equals(Files.readAttributes(b, BasicFileAttributes.class, NOFOLLOW).fileKey());
    }

    private static Path temporary(Path target) {
        String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        return target.resolveSibling(".rdflux-" + suffix + ".part");
    }

    /** Renames into place; a link or file already there is replaced, never followed. */
    private static void into(Path temp, Path target) throws IOException {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Sets the modification time, and the access time to when this stream began: with both
     * given, the JDK needs no stat to keep one of them. {@code link}: {@code p} is a symbolic
     * link, its own time is set; otherwise {@code p} is a file or directory this sink checked or
     * created, and the call may follow it (which spares the JDK an lstat).
     */
    private void times(Path p, long mtimeNanos, boolean link) throws IOException {
        BasicFileAttributeView view = link ? Files.getFileAttributeView(p, BasicFileAttributeView.class, NOFOLLOW)
                : Files.getFileAttributeView(p, BasicFileAttributeView.class);
        view.setTimes(FileTime.from(mtimeNanos, TimeUnit.NANOSECONDS), started, null);
    }

    private static void sync(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private Set<PosixFilePermission> permissions(int mode) {
        int m = mode & 0777;   // setuid, setgid and sticky bits are not applied (Java has no call for them)
        Set<PosixFilePermission> s = permissions[m];
        if (s == null) {
            StringBuilder b = new StringBuilder(9);
            String rwx = "rwxrwxrwx";
            for (int i = 0; i < 9; i++) {
                b.append((m & (0400 >> i)) != 0 ? rwx.charAt(i) : '-');
            }
            s = Set.copyOf(PosixFilePermissions.fromString(b.toString()));
            permissions[m] = s;
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static Set<PosixFilePermission>[] newPermissionCache() {
        return (Set<PosixFilePermission>[]) new Set<?>[512];
    }

    /**
     * A full disk ends the stream (every later file would fail the same way), naming the entry
     * it hit; so does a tree of one file that cannot be written (path "": the copy is that
     * file, and fails as a whole, as a file sink would, rather than as a partial transfer of ".").
     */
    private void fatalIfFull(String path, Exception x) {
        if (x instanceof IOException io) {
            ConnectorException.Reason reason = IoErrors.classify(io);
            if (reason == ConnectorException.Reason.NO_SPACE || path.isEmpty()) {
                throw ConnectorException.sink(reason, "cannot write "
                        + (path.isEmpty() ? dest : "'" + path + "' in " + dest) + ": " + phrase(io), io);
            }
        }
    }

    /** {@code a + b}, sums of sizes a sender declared: past the largest long the stream is refused, never wrapped. */
    private static long add(long a, long b, String what) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException x) {
            throw malformed(what + " add up to more than " + Long.MAX_VALUE);
        }
    }

    private static String phrase(Exception x) {
        return x instanceof IOException ? IoErrors.phrase(x) : x.getMessage();
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // Best effort: the error that got us here is the one reported.
            }
        }
    }

    private void failed(String path, String reason) {
        failureCount++;
        TreeFailure f = new TreeFailure(path, reason);
        if (failures.size() < options.maxReported()) {
            failures.add(f);
        }
        listener.onFailure(f);
    }

    /**
     * Lists and passes on the first {@code maxReported} warnings, and counts the rest: a sender
     * may send any number of them, and the listener's are printed (the report says how many more).
     */
    private void warn(String path, String message) {
        warningCount++;
        if (warnings.size() < options.maxReported()) {
            warnings.add((path.isEmpty() ? "." : path) + ": " + message);
            listener.onWarning(path, message);
        }
    }
}
