package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A file being received by the tree sink, contents and holes as they arrive. A small one is
 * gathered in memory and handed to a {@link SmallFileWriters writer} on its verified end; a
 * larger one is written as its data arrives. Either is created under its own name in a
 * directory this sink created, else under a temporary name renamed on its verified end. The
 * tree's only file, when its destination is a device or FIFO, is written through it in order.
 * The stream's rules (sizes, order) are checked before it is called ({@link TreeRules}).
 */
final class IncomingFile {

    /** What an incoming file writes with and reports to. */
    record Env(TreeFiles files, SmallFileWriters writers, TreeTally tally, TreeRules rules) {
    }

    private static final ByteBuffer ZERO = ByteBuffer.allocateDirect(1).asReadOnlyBuffer();
    /** Zeros for holes (a gathered file's, at most {@link SmallFileWriters#QUEUED_MAX} bytes, or one written through). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

    private final Env env;
    final TreeEntry entry;
    final Path target;
    final int flags;
    final boolean ignored;
    /** Whether its directory is one this sink created (decided on the sink's thread: the writers do not read the set). */
    final boolean fresh;
    /**
     * The tree's only file, whose destination is a device or FIFO: written through it in
     * order, as cp writes one, never replaced (see {@link TreeFiles#writtenThrough}).
     */
    final boolean through;
    /** With {@code through}: whether it is a block device, which fsync applies to. */
    private final boolean syncable;
    final Crc32c.Running crc = new Crc32c.Running();
    /** What is being written: the target, or a temporary name; null before the first write. */
    private Path path;
    private FileChannel channel;
    /** A small file's contents, until they are handed to a writer. */
    private ByteBuffer gathered;
    long received;
    /** Whether its contents continue a part file a cut copy kept, checked here ({@link #resume}). */
    private boolean resumed;
    private boolean endsInHole;
    String localFailure;

    IncomingFile(Env env, TreeEntry entry, Path target, int flags, boolean ignored, boolean fresh) {
        this.env = env;
        this.entry = entry;
        this.target = target;
        this.flags = flags;
        this.ignored = ignored;
        this.fresh = !ignored && fresh;
        int special = ignored || !entry.path().isEmpty() ? 0 : env.files().writtenThrough(target);
        this.through = special != 0;
        this.syncable = special == TreeFiles.S_IFBLK;
        if (ignored) {
            localFailure = "not written";
        }
    }

    /** Makes this a file a writer thread writes, if it is small and the budget allows. */
    void gather() throws IOException {
        if (!through) {
            gathered = env.writers().take(entry.size());
        }
    }

    void write(ByteBuffer data) {
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
            failedWriting(x);
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
            failedWriting(x);
        }
    }

    private void failedWriting(IOException x) {
        // Failed and removed first: a full disk that ends the stream keeps no part of this file.
        localFailure = "cannot write it: " + TreeFiles.phrase(x);
        closeAndDelete();
        env.files().fatalIfFull(entry.path(), x);
    }

    private void create() throws IOException {
        if (channel == null && through) {
            // No temporary name, no truncation, no rename: the device or FIFO itself, opened
            // for writing (a FIFO waits here for its reader, as it would for cp).
            channel = FileChannel.open(target, StandardOpenOption.WRITE);
            return;
        }
        if (channel == null) {
            TreeFiles.Output out = TreeFiles.createFile(target, fresh);
            path = out.path();
            channel = out.channel();
        }
    }

    /**
     * The sender resumes this file at {@code r}'s offset: the part file a cut copy kept beside
     * it ({@link StagedTree#partName}) must hold that prefix, whose SHA-256 this side computes
     * itself and compares; only then does it become the file being written, cut to the offset,
     * its CRC32C carried on. Otherwise the file fails by name, the part is removed (a re-run
     * sends the file whole) and the rest of its contents are dropped.
     */
    void resume(TreeFormat.Resume r) throws IOException {
        if (gathered != null) {
            env.writers().release(gathered);   // a prefix lives on disk, not in a gathered buffer
            gathered = null;
        }
        received = r.offset();
        if (ignored || localFailure != null) {
            return;
        }
        if (through) {
            // A device or FIFO has no part beside it: its listing is empty, so no sender of ours asks.
            localFailure = "not resumed: its destination is a device or FIFO, which is written through";
            return;
        }
        Path part = target.resolveSibling(StagedTree.partName(target.getFileName().toString()));
        String mismatch;
        FileChannel ch = null;
        try {
            ch = FileChannel.open(part, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            // Not a link (NOFOLLOW), a regular file, and no other name: writing on must change nothing else.
            mismatch = !Files.isRegularFile(part, LinkOption.NOFOLLOW_LINKS) ? "it is not a regular file"
                    : ((Number) Files.getAttribute(part, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue() != 1
                    ? "it has other names (hard links)" : checkPrefix(ch, r);
        } catch (java.nio.file.NoSuchFileException x) {
            mismatch = "it is gone";
        } catch (IOException x) {
            env.files().fatalIfFull(entry.path(), x);
            mismatch = "it cannot be read: " + TreeFiles.phrase(x);
        }
        if (mismatch == null) {
            ch.truncate(r.offset());
            // Made by an earlier run, perhaps changed since: its mode is set here, not assumed.
            env.files().chmod(part, entry.mode() & 0777);   // set-id bits, if any, are the final place's
            path = part;
            channel = ch;
            resumed = true;
            return;
        }
        if (ch != null) {
            ch.close();
        }
        TreeFiles.deleteQuietly(part);
        localFailure = "not resumed: the part of it kept here from a cut copy (" + part.getFileName()
                + ") does not hold the source's first " + r.offset() + " bytes (" + mismatch
                + "); removed it: run the copy again to send the file whole";
    }

    /** Null when {@code ch} holds {@code r}'s prefix (its SHA-256 computed here), else why not; adds the prefix to the CRC. */
    private String checkPrefix(FileChannel ch, TreeFormat.Resume r) throws IOException {
        if (ch.size() < r.offset()) {
            return "it has " + ch.size() + " bytes";
        }
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
        for (long at = 0; at < r.offset(); ) {
            b.clear().limit((int) Math.min(b.capacity(), r.offset() - at));
            int n = ch.read(b, at);
            if (n <= 0) {
                return "it ended early";
            }
            b.flip();
            crc.update(b.duplicate());
            sha.update(b);
            at += n;
        }
        if (!Arrays.equals(sha.digest(), r.prefixSha256())) {
            crc.reset();
            return "its checksum differs";
        }
        return null;
    }

    /**
     * On a cut stream: keeps what was written of a large file as its part file beside it
     * ({@code .rdflux-NAME.part}, replacing an older one), for a re-run with a sync to resume;
     * true when kept. A small (gathered) file, one written through and one that failed are not
     * kept; the tree's only file is, beside the destination ({@link StagedTree#rootPart}). Its size is as far as data was written: a hole at the
     * end is sent again.
     */
    boolean keepPart() {
        if (gathered != null || through || ignored || localFailure != null || path == null || channel == null) {
            return false;
        }
        Path part = target.resolveSibling(StagedTree.partName(target.getFileName().toString()));
        try {
            channel.close();
            channel = null;
            if (Files.size(path) == 0) {
                return false;
            }
            if (!path.equals(part)) {
                Files.move(path, part, StandardCopyOption.ATOMIC_MOVE);
            }
            path = null;
            return true;
        } catch (IOException x) {
            return false;   // discarded as any partial file
        }
    }

    /** Queues a gathered file for a writer; writes out any other: mode, time, name. */
    void commit() throws IOException {
        if (gathered != null) {
            ByteBuffer contents = gathered;
            gathered = null;   // the writer's now: it gives the buffer back
            env.writers().queue(new SmallFileWriters.Job(entry, target, fresh, contents, this::written));
            return;
        }
        try {
            create();
            if (endsInHole && !through) {
                // A hole at the end is not written: one zero byte gives the file its length.
                channel.write(ZERO.duplicate(), received - 1);
            }
            if (env.files().fsync() && (!through || syncable)) {
                channel.force(true);
            }
            channel.close();
            if (!through) {
                // Written through, a device or FIFO keeps its own mode and times, as with cp.
                env.files().place(path, target, entry);
                if (!fresh && !resumed) {
                    // A part a cut copy kept of it is stale now (a plain re-run sent it whole).
                    TreeFiles.deleteQuietly(target.resolveSibling(StagedTree.partName(target.getFileName().toString())));
                }
            }
            path = null;
        } catch (IOException x) {
            closeAndDelete();
            written(x);
            return;
        }
        written(null);
    }

    /** Reports the file in place ({@code failure} null) or failed: on the sink's thread. */
    void written(Exception failure) {
        if (failure == null) {
            env.tally().fileWritten(received);
            env.rules().linkTarget(entry, flags, true);
            env.tally().listener().onDone(entry, received);
        } else {
            env.files().fatalIfFull(entry.path(), failure);
            env.rules().linkTarget(entry, flags, false);
            env.tally().failed(entry.path(), "cannot write it: " + TreeFiles.phrase(failure));
        }
    }

    /** {@code reason}, and for a file written through, that what it was given stays there. */
    String kept(String reason) {
        return through && channel != null
                ? reason + "; what arrived before was already written through to " + target + ", which keeps it"
                : reason;
    }

    /** Whether what arrived was written through to a device or FIFO, which keeps it. */
    boolean wroteThrough() {
        return through && channel != null;
    }

    /** Closes and removes what was written, or gives back a gathered file's budget; true when a file was there. */
    boolean discard() {
        if (gathered != null) {
            env.writers().release(gathered);
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
        TreeFiles.deleteQuietly(path);
        path = null;
    }
}
