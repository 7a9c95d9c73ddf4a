package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A lock file that its last holder removes: whoever holds {@code PATH}'s lock owns what it
 * guards (a standby's slot, a warm agent's place), and removes the file before releasing it,
 * so no file stays behind per context ever used. Removing races with taking: another process
 * may have opened the file just before it was removed and lock it just after, holding a lock on
 * a file no path names while a third creates a new one. So a taker, once it holds the lock,
 * writes a token of its own into the file and reads it back through the path: only when the
 * path still names the file it locked does it keep the lock; otherwise it lets go and tries the
 * path again. A holder killed before removing leaves the file, which the next taker reuses.
 */
public final class LockFile implements AutoCloseable {

    /** How often a taker tries again after losing a race with a removal (each loss needs another taker). */
    private static final int ATTEMPTS = 8;

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private LockFile(Path path, FileChannel channel, FileLock lock) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes {@code path}'s lock without waiting: the lock held on the file the path names, or
     * null when another process (or this one) holds it.
     */
    public static LockFile tryTake(Path path) throws IOException {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            FileChannel f = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = f.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;   // this very process holds it (tests)
            } catch (IOException e) {
                f.close();
                throw e;
            }
            if (lock == null) {
                f.close();
                return null;
            }
            if (named(path, f)) {
                return new LockFile(path, f, lock);   // the channel stays open with the lock
            }
            f.close();   // removed under us by its last holder: take the path's file anew
        }
        return null;   // lost every race: as good as held by others
    }

    /** Whether {@code path} names the file {@code locked} is open on: the token written through one is read through the other. */
    private static boolean named(Path path, FileChannel locked) throws IOException {
        byte[] token = (ProcessHandle.current().pid() + " " + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        locked.truncate(0);
        ByteBuffer b = ByteBuffer.wrap(token);
        while (b.hasRemaining()) {
            locked.write(b, b.position());
        }
        byte[] there;
        try {
            there = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return false;
        }
        return java.util.Arrays.equals(token, there);
    }

    /**
     * Removes the file while still holding its lock (a taker that opened it before re-checks and
     * tries anew), then releases; nothing once released (the path may be another's file by then).
     */
    public synchronized void removeAndRelease() {
        if (released) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // left behind: the next taker reuses it
        }
        close();
    }

    /** Releases the lock and leaves the file (for a successor about to take it at once). */
    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        try {
            lock.release();
        } catch (IOException e) {
            // the process ends in a moment, which releases it anyway
        }
        try {
            channel.close();
        } catch (IOException e) {
            // as above
        }
    }
}
