package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.ConnectorException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Makes the tree sink's entries other than file contents at the destination: directories
 * (made, or found real with no link followed), files kept as they are by a sync, symbolic and
 * hard links (created exclusively in a directory this sink made, elsewhere under a temporary
 * name renamed into place, which replaces a link rather than following it), and at the end the
 * directories' modes and times. Entries reach it only once {@link TreeRules} accepted them.
 * A failure that concerns one entry fails that entry; a full disk fails the stream.
 */
final class TreeMaterializer {

    private final IncomingFile.Env env;
    private final TreeFiles files;
    private final TreeTally tally;
    /** Directories this sink created: no file in them is anyone else's. */
    private final Set<String> createdDirectories = new HashSet<>();
    /** The directories of the copy in the stream's order (the root too, unless it is a container). */
    private final List<TreeEntry> directoryOrder = new ArrayList<>();
    /** The size of the destination's file system, the bound on any file's size; -1 before it is known. */
    private long capacity = -1;

    TreeMaterializer(IncomingFile.Env env) {
        this.env = env;
        this.files = env.files();
        this.tally = env.tally();
    }

    /** The directories of the copy in the stream's order. */
    List<TreeEntry> directories() {
        return directoryOrder;
    }

    /** Whether the entry at {@code path} (not the root) is in a directory this sink created. */
    boolean fresh(String path) {
        return !path.isEmpty() && createdDirectories.contains(TreeFormat.parent(path));
    }

    void directory(TreeEntry e, Path target) throws IOException {
        String path = e.path();
        try {
            if (path.isEmpty() && !env.rules().container()) {
                target = stageRoot(target);
            }
            if (!path.isEmpty() && made(target)) {
                createdDirectories.add(path);
            } else {
                BasicFileAttributes a = TreeFiles.attributes(path.isEmpty() ? target : null, target);
                if (a == null) {
                    Files.createDirectory(target);
                    createdDirectories.add(path);
                } else if (!a.isDirectory()) {
                    if (path.isEmpty()) {
                        throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write "
                                + files.dest() + ": it exists and is not a directory", null);
                    }
                    // A file or link in the way of a directory is replaced, as rsync does.
                    Files.delete(target);
                    Files.createDirectory(target);
                    createdDirectories.add(path);
                }
            }
        } catch (IOException x) {
            files.fatalIfFull(path, x);
            if (path.isEmpty()) {
                throw x;
            }
            env.rules().directoryFailed(path);
            tally.failed(path, "cannot create this directory: " + TreeFiles.phrase(x));
            return;
        }
        env.rules().directoryMade(path);
        if (path.isEmpty() && env.rules().container()) {
            return;   // not part of the copy: no mode, no time, no deletion, not counted
        }
        directoryOrder.add(e);
        tally.directories++;
        tally.listener().onDone(e, 0);
    }

    /**
     * Makes directory {@code target} if nothing is there; false when something is (EEXIST). Below
     * the root the sink tries mkdir first: in a fresh copy nearly every directory is new, and a
     * look before each (a failing statx) cost a system call per directory for nothing. mkdir
     * follows no link in its last component, so a link or file in the way still reaches the
     * check that replaces it.
     */
    private static boolean made(Path target) throws IOException {
        try {
            Files.createDirectory(target);
            return true;
        } catch (FileAlreadyExistsException x) {
            return false;
        }
    }

    /**
     * Where a root directory is written: in place when the destination exists; else staged
     * beside it under {@link StagedTree#of}, made now or found from a cut copy (whose files
     * then count as any existing directory's), and renamed at the end, so that a cut copy leaves
     * no directory under the final name for a re-run to copy into ({@code docs/tree-format.md}).
     */
    private Path stageRoot(Path dest) throws IOException {
        Path staged = StagedTree.of(dest);
        if (staged == null || TreeFiles.attributes(dest, dest) != null) {
            return dest;
        }
        BasicFileAttributes a = StagedTree.at(staged);
        if (a != null && !a.isDirectory()) {
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + files.dest()
                    + ": " + staged + ", where it is staged until complete, is in the way and not a directory", null);
        }
        files.stage(staged);
        return staged;
    }

    /**
     * Why a file of {@code size} bytes cannot be written here, or null: larger than the whole
     * file system of the destination. A sender may declare any size and then send it as one
     * hole (a few bytes on the wire); no file system takes more than it holds, and a sparse file
     * larger than its file system is refused too, rather than trusted.
     */
    String tooLarge(long size) {
        if (capacity < 0) {
            capacity = Long.MAX_VALUE;   // unknown: the file system's own errors apply
            Path p = files.dest().toAbsolutePath();
            while (p != null && !Files.exists(p, TreeFiles.NOFOLLOW)) {
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

    /** A file the sender found current (sync): kept, its mode and time brought up to date. */
    void keep(TreeEntry e, Path target, int flags) throws IOException {
        try {
            // One lstat: the mode with its setuid, setgid and sticky bits, which POSIX attributes leave out.
            Map<String, Object> a = Files.readAttributes(target, "unix:mode,size,lastModifiedTime", TreeFiles.NOFOLLOW);
            int now = (Integer) a.get("mode");
            if ((now & TreeFiles.S_IFMT) != TreeFiles.S_IFREG || (Long) a.get("size") != e.size()) {
                tally.failed(e.path(), "was to be kept as it is, but changed at the destination since it was listed");
                env.rules().linkTarget(e, flags, false);
                return;
            }
            int mode = files.fileMode(e);
            if ((now & TreeFiles.MODE_BITS) != mode) {   // a sync that changes only the mode, sticky too
                files.chmod(target, mode);
            }
            if (((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS) != e.mtimeNanos()) {
                files.ownTimes(target, e.mtimeNanos());   // a regular file, checked not followed
            }
        } catch (IOException x) {
            files.fatalIfFull(e.path(), x);
            tally.failed(e.path(), "was to be kept as it is, but " + TreeFiles.phrase(x));
            env.rules().linkTarget(e, flags, false);
            return;
        }
        tally.unchanged++;
        env.rules().linkTarget(e, flags, true);
        tally.listener().onKept(e);
    }

    void symlink(TreeEntry e, Path target) throws IOException {
        if (e.path().isEmpty() && files.writtenThrough(target) != 0) {
            // Renamed over it, the link would replace the device or FIFO the user named.
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + files.dest()
                    + ": a symbolic link cannot be written through a device or FIFO", null);
        }
        Path temp = null;
        try {
            if (fresh(e.path()) && createDirectly(target, e)) {
                return;
            }
            if (Files.isSymbolicLink(target) && Files.readSymbolicLink(target).toString().equals(e.link())) {
                files.times(target, e.mtimeNanos(), true);
            } else {
                temp = TreeFiles.temporary(target);
                Files.createSymbolicLink(temp, target.getFileSystem().getPath(e.link()));
                files.times(temp, e.mtimeNanos(), true);
                TreeFiles.into(temp, target);
            }
        } catch (IOException | InvalidPathException x) {
            TreeFiles.deleteQuietly(temp);
            files.fatalIfFull(e.path(), x);
            tally.failed(e.path(), "cannot make this symbolic link: " + TreeFiles.phrase(x));
            return;
        }
        tally.symlinks++;
        tally.listener().onDone(e, 0);
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
            files.times(target, e.mtimeNanos(), true);
        } catch (IOException x) {
            TreeFiles.deleteQuietly(target);
            throw x;
        }
        tally.symlinks++;
        tally.listener().onDone(e, 0);
        return true;
    }

    void hardLink(TreeEntry e, Path target) throws IOException {
        env.writers().awaitAll();   // the file it names may still be with a writer
        if (!env.rules().hardLinkTargetArrived(e)) {
            tally.failed(e.path(), "not linked: '" + e.link() + "', the file it is a name of, did not arrive");
            return;
        }
        Path temp = null;
        try {
            Path file = files.resolve(e.link());
            if (!TreeFiles.sameFile(target, file)) {
                temp = TreeFiles.temporary(target);
                Files.createLink(temp, file);
                // (rename() of two names of one file does nothing: hence the check above)
                TreeFiles.into(temp, target);
            }
        } catch (IOException x) {
            TreeFiles.deleteQuietly(temp);
            files.fatalIfFull(e.path(), x);
            tally.failed(e.path(), "cannot make this hard link: " + TreeFiles.phrase(x));
            return;
        }
        tally.hardLinks++;
        tally.listener().onDone(e, 0);
    }

    /** After the stream: each directory's mode and time, children before parents (the reverse of the stream's order). */
    void finishDirectories() {
        for (int i = directoryOrder.size() - 1; i >= 0; i--) {
            TreeEntry d = directoryOrder.get(i);
            Path dir = files.resolve(d.path());
            try {
                files.chmod(dir, d.mode());   // sticky and setgid too, as rsync -a keeps them
                if (d.path().isEmpty()) {
                    files.times(dir, d.mtimeNanos(), false);   // the root may be a link the user named
                } else {
                    files.ownTimes(dir, d.mtimeNanos());   // made here, or checked not followed
                }
                if (files.fsync()) {
                    TreeFiles.sync(dir);
                }
            } catch (IOException e) {
                files.fatalIfFull(d.path(), e);
                tally.failed(d.path(), "cannot set its mode and time: " + TreeFiles.phrase(e));
            }
        }
    }

    /**
     * After the stream: one warning, naming the first file, for the files whose setuid or
     * setgid bits were dropped ({@link TreeFiles#fileMode}), with how many and why.
     */
    void warnSetIdDropped() {
        long n = files.setIdDropped();
        if (n > 0) {
            tally.warn(files.firstSetIdDropped(), "setuid/setgid bits dropped from this file"
                    + (n == 1 ? "" : " and " + (n - 1) + " more") + " (a copy never makes set-id programs;"
                    + " chmod u+s or g+s them yourself where you trust them)");
        }
    }

    /**
     * After a failed stream: the directories this copy created and left empty go, deepest first
     * (the destination itself too, if it made it), so that a refused or cut stream leaves no
     * empty tree behind; a directory that holds anything stays.
     */
    void removeEmptyCreatedDirectories() {
        List<String> made = new ArrayList<>(createdDirectories);
        made.sort(Comparator.comparingInt(String::length).reversed());
        for (String path : made) {
            Path dir = files.resolve(path);
            try {
                if (Files.isDirectory(dir, TreeFiles.NOFOLLOW)) {
                    Files.delete(dir);
                }
            } catch (IOException | RuntimeException x) {
                // Not empty, or gone: either way not ours to remove.
            }
        }
    }
}
