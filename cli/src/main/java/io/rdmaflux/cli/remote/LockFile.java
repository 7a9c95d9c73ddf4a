package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A lock file whose holder is the one live owner of something (a warm agent's place, a standby's
 * slot), and which its holder removes as it ends, so that no 0-byte file is left per key.
 *
 * <p>Removing is race-free because only a holder removes the name, while it holds the lock, and
 * every taker checks, once it has the lock, that the path still names the file it locked ({@link
 * #tryTake}): a taker that opened the file before its holder removed it gets the lock on a file
 * no longer named, sees so, and takes the path's new file instead. The check reads the kernel's
 * list of locks ({@code /proc/locks}): Java cannot stat an open channel, and never opening a
 * locked file twice matters, since closing any descriptor of a file drops every POSIX lock the
 * process holds on it. Where that list cannot be read (not Linux), names are never removed and
 * no check is needed.
 *
 * <p>{@link #held} tells whether some live process holds a file's lock, from the same list,
 * without taking or touching the lock: a lock's holder is alive by definition, since the kernel
 * drops the locks of a process as it ends, SIGKILL included.
 */
public final class LockFile {

    /** The kernel's list of the locks held now. */
    private static final Path PROC_LOCKS = Path.of("/proc/locks");
    /** {@code MAJOR:MINOR:INODE} of a line of {@code /proc/locks}: hex, hex, decimal. */
    private static final Pattern FILE = Pattern.compile("([0-9a-f]+):([0-9a-f]+):([0-9]+)");
    /** How often a taker follows a name that its holder removed meanwhile before it gives up (as if held). */
    private static final int ATTEMPTS = 100;

    /**
     * The locks held now: each locked file's inode number and the pids that hold a lock on it.
     * Only the inode is compared, not the device: the list names the file system's own device,
     * and {@code stat} reports another on btrfs subvolumes and overlay mounts, where a device
     * check would never find a live holder (its standby's socket would be taken for a dead one's
     * and removed, and a starting daemon would never see its own lock). An inode of another file
     * system with the same number can only make a file look held: the cautious error.
     */
    private final Map<Long, Set<Long>> held;

    private LockFile(Map<Long, Set<Long>> held) {
        this.held = held;
    }

    /** The locks held now; null when the kernel's list cannot be read (not Linux). */
    public static LockFile locksNow() {
        return read(PROC_LOCKS);
    }

    /** The locks listed in {@code procLocks}; null when it cannot be read. */
    static LockFile read(Path procLocks) {
        Map<Long, Set<Long>> held = new HashMap<>();
        try {
            for (String line : Files.readAllLines(procLocks)) {
                String[] f = line.trim().split("\\s+");
                // "N: -> POSIX ..." is a process waiting for the lock, not holding it.
                if (f.length < 6 || f[1].equals("->")) {
                    continue;
                }
                for (int i = 1; i < f.length; i++) {
                    Matcher m = FILE.matcher(f[i]);
                    if (m.matches()) {
                        long pid = parsePid(f[i - 1]);
                        held.computeIfAbsent(Long.parseLong(m.group(3)), k -> new HashSet<>()).add(pid);
                        break;
                    }
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            return null;
        }
        return new LockFile(held);
    }

    private static long parsePid(String field) {
        try {
            return Long.parseLong(field);
        } catch (NumberFormatException e) {
            return -1;   // an open file description's lock has no pid
        }
    }

    /** Whether some process holds a lock on the file {@code path} names now; false when it names none. */
    public boolean held(Path path) {
        Long inode = inode(path);
        return inode != null && held.containsKey(inode);
    }

    /** Whether this process holds a lock on the file {@code path} names now. */
    boolean heldByThisProcess(Path path) {
        Long inode = inode(path);
        return inode != null && held.getOrDefault(inode, Set.of()).contains(ProcessHandle.current().pid());
    }

    /** How a taker tries the lock of the file it opened: at once, or waiting a while; null when held. */
    @FunctionalInterface
    public interface Attempt {
        FileLock lock(FileChannel file) throws IOException;
    }

    /**
     * Takes {@code path}'s lock (made when missing) unless a process holds it: the lock, whose
     * channel stays open with it, or null. Not opened when the list shows it held, by this
     * process too (see the class comment).
     */
    public static FileLock tryTake(Path path) throws IOException {
        return take(path, true, f -> {
            try {
                return f.tryLock();
            } catch (OverlappingFileLockException e) {
                return null;   // this very process holds it (a test, in a race with itself)
            }
        });
    }

    /**
     * Takes {@code path}'s lock (made when missing) as {@code attempt} tries it (a holder that
     * lets go within a wait, say): the lock, whose channel stays open with it, or null.
     */
    public static FileLock take(Path path, Attempt attempt) throws IOException {
        return take(path, false, attempt);
    }

    /**
     * Once locked, the path must still name the locked file, else its holder removed it
     * meanwhile: then the path's new file is tried. {@code lookFirst}: not even opened while the
     * kernel's list shows it held.
     */
    private static FileLock take(Path path, boolean lookFirst, Attempt attempt) throws IOException {
        for (int i = 0; i < ATTEMPTS; i++) {
            if (lookFirst) {
                LockFile before = locksNow();
                if (before != null && before.held(path)) {
                    return null;
                }
            }
            FileChannel f = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = attempt.lock(f);
            } catch (IOException | RuntimeException e) {
                f.close();
                throw e;
            }
            if (lock == null) {
                f.close();
                return null;
            }
            if (namesLocked(path)) {
                return lock;
            }
            f.close();   // a file no longer named: releases its lock
        }
        return null;
    }

    /**
     * Whether {@code path} names a file this process holds a lock on (the one it just locked);
     * true when the kernel's list cannot be read, since names are never removed then.
     */
    public static boolean namesLocked(Path path) {
        LockFile now = locksNow();
        return now == null || now.heldByThisProcess(path);
    }

    /**
     * Removes {@code path}'s name; the caller holds its lock and releases it after this (closing
     * its channel). Nothing when the name does not name this process's locked file, or when
     * takers could not check ({@link #namesLocked}).
     */
    public static void removeName(Path path) {
        LockFile now = locksNow();
        if (now == null || !now.heldByThisProcess(path)) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // Left as before: the next holder removes it.
        }
    }

    /** The inode number of the file {@code path} names (not following a link); null when it names none. */
    static Long inode(Path path) {
        try {
            return ((Number) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return null;
        }
    }
}
