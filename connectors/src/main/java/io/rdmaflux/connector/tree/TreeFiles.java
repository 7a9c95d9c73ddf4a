package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.IoErrors;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tree sink's file-system calls at one destination: resolving entry paths, creating files
 * exclusively, renaming into place without following links, modes and times, device and FIFO
 * detection, and how an I/O error is told (a full disk ends the stream). Methods marked "any
 * thread" are called by the small-file writers too.
 */
// Not final: SmallFileWritersTest makes place() throw an Error, which no real file system call can.
class TreeFiles {

    static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    static final int S_IFMT = 0170000;
    static final int S_IFREG = 0100000;
    private static final int S_IFIFO = 0010000;
    static final int S_IFCHR = 0020000;
    static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;
    /** Permissions with setuid, setgid and sticky: what a tree entry's mode carries. */
    static final int MODE_BITS = 07777;
    /** Setuid and setgid: kept on directories, dropped from files ({@link #fileMode}). */
    private static final int SET_ID = 06000;

    private final Path dest;
    /** Where the root's entries go: the destination, or the directory it is staged in until the stream ends. */
    private volatile Path root;
    private final boolean fsync;
    /** When this stream began: every entry's access time. */
    private final FileTime started = FileTime.from(java.time.Instant.now());
    private final long startedNanos = started.to(TimeUnit.NANOSECONDS);
    private final Set<PosixFilePermission>[] permissions = newPermissionCache();
    /** Files whose setuid or setgid bits were dropped, and the first of them by path. */
    private final AtomicLong setIdDropped = new AtomicLong();
    private volatile String firstSetIdDropped;
    /** The mode a file gets when created here (the umask's doing), or -1 before the first. */
    private volatile int createdMode = -1;

    TreeFiles(Path dest, boolean fsync) {
        this.dest = dest;
        this.root = dest;
        this.fsync = fsync;
    }

    Path dest() {
        return dest;
    }

    /** From now on the root's entries go to {@code staged} (see {@link StagedTree}), until {@link #unstage()}. */
    void stage(Path staged) {
        root = staged;
    }

    /** The staging directory the root is written in, or null when it is written in place. */
    Path staged() {
        return root.equals(dest) ? null : root;
    }

    /**
     * Gives a staged root its final name, once the stream ended; refuses to replace anything
     * that took that name meanwhile.
     */
    void unstage() throws IOException {
        Path staged = staged();
        if (staged == null) {
            return;
        }
        try {
            Files.move(staged, dest);   // a rename: same directory; not ATOMIC_MOVE, which would replace an empty directory
        } catch (FileAlreadyExistsException e) {
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot put the copy in place: "
                    + dest + " appeared while it was written; the copy is in " + staged, e);
        }
        root = dest;
    }

    boolean fsync() {
        return fsync;
    }

    /** Where entry {@code path} goes (the destination itself for the root). */
    Path resolve(String path) {
        Path r = root;
        return path.isEmpty() ? r : r.resolve(path);
    }

    /** The attributes of {@code target} without following a link (following one at the root), or null. */
    static BasicFileAttributes attributes(Path root, Path target) throws IOException {
        try {
            return root != null ? Files.readAttributes(root, BasicFileAttributes.class)
                    : Files.readAttributes(target, BasicFileAttributes.class, NOFOLLOW);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Whether {@code a} (not followed if a link) is the file {@code b} already. */
    static boolean sameFile(Path a, Path b) throws IOException {
        BasicFileAttributes x = attributes(null, a);
        return x != null && x.fileKey() != null
                && x.fileKey().equals(Files.readAttributes(b, BasicFileAttributes.class, NOFOLLOW).fileKey());
    }

    static Path temporary(Path target) {
        String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        return target.resolveSibling(".rdflux-" + suffix + ".part");
    }

    /** Renames into place; a link or file already there is replaced, never followed. */
    static void into(Path temp, Path target) throws IOException {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Sets the modification time, and the access time to when this stream began: with both
     * given, the JDK needs no stat to keep one of them. {@code link}: {@code p} is a symbolic
     * link, its own time is set (to the nanosecond with {@link LinkTimes}); otherwise {@code p}
     * is a file or directory this sink checked or created, and the call may follow it (which
     * spares the JDK an lstat). Any thread.
     */
    void times(Path p, long mtimeNanos, boolean link) throws IOException {
        if (link && LinkTimes.set(p, mtimeNanos, startedNanos)) {
            return;   // to the nanosecond; the JDK's lutimes keeps microseconds
        }
        BasicFileAttributeView view = link ? Files.getFileAttributeView(p, BasicFileAttributeView.class, NOFOLLOW)
                : Files.getFileAttributeView(p, BasicFileAttributeView.class);
        view.setTimes(FileTime.from(mtimeNanos, TimeUnit.NANOSECONDS), started, null);
    }

    /**
     * Sets the times of an entry this sink wrote or checked itself, not followed: a file it
     * created, a kept regular file, a directory below the root. By path with {@link LinkTimes}
     * ({@code utimensat}) where the library is loaded: the JDK's call opens the file to set its
     * times with {@code futimens}, which costs an open and a close per file, and, for an owner
     * without CAP_DAC_OVERRIDE, fails on a file or directory whose mode gives its owner no read
     * permission ({@code 0200}, {@code 0000}), modes the sink has already given it. Otherwise
     * as {@link #times}. Any thread.
     */
    void ownTimes(Path p, long mtimeNanos) throws IOException {
        if (!LinkTimes.set(p, mtimeNanos, startedNanos)) {
            times(p, mtimeNanos, false);
        }
    }

    static void sync(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /**
     * The mode a regular file of the tree gets: the entry's, less setuid and setgid, which are
     * counted ({@link #setIdDropped}). A stream must not make set-id programs: a sink run by
     * root would make root's. Sticky stays, as on directories. Any thread.
     */
    int fileMode(TreeEntry e) {
        int m = e.mode() & MODE_BITS;
        if ((m & SET_ID) != 0) {
            if (setIdDropped.getAndIncrement() == 0) {
                firstSetIdDropped = e.path();
            }
            m &= ~SET_ID;
        }
        return m;
    }

    /** How many files had setuid or setgid bits dropped so far. */
    long setIdDropped() {
        return setIdDropped.get();
    }

    /** The first file whose setuid or setgid bits were dropped, or null. */
    String firstSetIdDropped() {
        return firstSetIdDropped;
    }

    /**
     * Gives {@code p} (followed if a link: only files and directories come here) the {@code 07777}
     * bits of {@code mode}: on a directory sticky and setgid too, as {@code rsync -a} keeps them
     * (files come through {@link #fileMode}). The sink changes no owner, so there is no chown
     * to clear the bits after. Where the file system has no unix view, the {@code 0777} bits.
     * Any thread.
     */
    void chmod(Path p, int mode) throws IOException {
        try {
            Files.setAttribute(p, "unix:mode", mode & MODE_BITS);
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            Files.setPosixFilePermissions(p, permissions(mode));
        }
    }

    /** The {@code 07777} bits of {@code p}'s mode (not followed), or of its permissions where there is no unix view. */
    static int mode(Path p) throws IOException {
        try {
            return (Integer) Files.getAttribute(p, "unix:mode", NOFOLLOW) & MODE_BITS;
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            int m = 0;
            for (PosixFilePermission x : Files.getPosixFilePermissions(p, NOFOLLOW)) {
                m |= 0400 >> x.ordinal();   // the enum's order is rwx for owner, group, others
            }
            return m;
        }
    }

    /** The permissions of a mode's {@code 0777} bits. Any thread (a racing fill stores equal sets). */
    private Set<PosixFilePermission> permissions(int mode) {
        int m = mode & 0777;
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
     * Creates an empty file for {@code target}: under its own name when its directory is one
     * this sink created and the name is free (a name taken there was listed twice by the
     * stream, and is replaced as anywhere else), else under a fresh temporary name beside it.
     * Both exclusively: nothing is followed or overwritten. Any thread.
     */
    static Output createFile(Path target, boolean fresh) throws IOException {
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
    record Output(Path path, FileChannel channel) {
    }

    /** Gives a written file its mode and time and, written under a temporary name, its name. Any thread. */
    void place(Path file, Path target, TreeEntry entry) throws IOException {
        int created = createdMode;
        if (created < 0) {
            created = mode(file);
            createdMode = created;
        }
        // After the contents: a write by a user other than root clears setuid and setgid.
        int mode = fileMode(entry);
        if (mode != created) {
            chmod(file, mode);
        }
        ownTimes(file, entry.mtimeNanos());
        if (!file.equals(target)) {
            into(file, target);
        }
    }

    /**
     * What the destination of a tree of one file is when it is written through rather than
     * replaced: {@link #S_IFCHR}, {@link #S_IFBLK} or {@code S_IFIFO} for an existing character
     * device, block device or FIFO (a symbolic link to one followed, as cp follows it), else 0.
     * A socket cannot be written, and is not replaced either: the copy fails.
     */
    int writtenThrough(Path target) {
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

    /** Deletes a file, a link (not what it points to) or a whole directory. */
    static void deleteTree(Path p) throws IOException {
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

    static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // Best effort: the error that got us here is the one reported.
            }
        }
    }

    /**
     * A full disk ends the stream (every later file would fail the same way), naming the entry
     * it hit; so does a tree of one file that cannot be written (path "": the copy is that
     * file, and fails as a whole, as a file sink would, rather than as a partial transfer of ".").
     */
    void fatalIfFull(String path, Exception x) {
        if (x instanceof IOException io) {
            ConnectorException.Reason reason = IoErrors.classify(io);
            if (reason == ConnectorException.Reason.NO_SPACE || path.isEmpty()) {
                throw ConnectorException.sink(reason, "cannot write "
                        + (path.isEmpty() ? dest : "'" + path + "' in " + dest) + ": " + phrase(io), io);
            }
        }
    }

    static String phrase(Exception x) {
        return x instanceof IOException ? IoErrors.phrase(x) : x.getMessage();
    }
}
