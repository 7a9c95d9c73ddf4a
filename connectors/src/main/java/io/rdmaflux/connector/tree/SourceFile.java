package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.tree.TreeWalker.Item;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A file being read for the tree stream, by the packer (small files) or a lane (large ones):
 * its channel, the walk's size, how far it is read, the CRC32C of what was read and the first
 * read error. Used by one task at a time.
 */
final class SourceFile {

    private static final Logger log = Loggers.getLogger(SourceFile.class);

    final Item item;
    final long size;
    private final FileChannel channel;
    private final CRC32C crc = new CRC32C();
    private long position;
    private String failure;

    /** @param size the walk's size: a file that changed since is caught by {@link #end} */
    SourceFile(Item item, FileChannel channel, long size) {
        this.item = item;
        this.channel = channel;
        this.size = size;
    }

    long position() {
        return position;
    }

    /** Bytes of the walk's size not read yet. */
    long left() {
        return size - position;
    }

    /**
     * Reads up to {@code n} bytes at the current position into {@code b} from its position,
     * adding them to the checksum; returns how many (fewer at an early end of file, 0 after
     * a read error, which is recorded as this file's failure).
     */
    int read(ByteBuffer b, int n) {
        int start = b.position();
        int limit = b.limit();
        b.limit(start + n);
        int got = 0;
        try {
            while (b.hasRemaining()) {
                int r = channel.read(b, position + got);
                if (r < 0) {
                    break;
                }
                got += r;
            }
        } catch (IOException e) {
            failure = "read error: " + IoErrors.phrase(e);
            b.limit(limit).position(start);
            return 0;
        }
        b.position(start).limit(start + got);
        crc.update(b);
        b.limit(limit);
        position += got;
        return got;
    }

    /**
     * Reads the first {@code n} bytes (a prefix the receiver kept from a cut copy) into the
     * checksum, so that reading goes on after them, and returns their SHA-256 for the receiver
     * to check its part against; null (nothing read) when they cannot be read in full.
     */
    byte[] prefix(long n) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < n; ) {
                b.clear().limit((int) Math.min(b.capacity(), n - at));
                int r = channel.read(b, at);
                if (r <= 0) {
                    crc.reset();
                    return null;
                }
                b.flip();
                crc.update(b.duplicate());
                sha.update(b);
                at += r;
            }
            position = n;
            return sha.digest();
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            crc.reset();
            return null;   // sent whole, and a read error reported then
        }
    }

    boolean done() {
        return position >= size || failure != null;
    }

    /**
     * Ends the file: closes it and writes its FILE_END into {@code b}, OK only when all of the
     * size the walk saw was read and the file did not change since the walk ({@link FileChange}).
     *
     * @return why the file is not sent as OK, or null when it is
     */
    String end(ByteBuffer b, int id) {
        String why = failure != null ? failure : FileChange.since(item, size, position);
        close();
        TreeFormat.putFileEnd(b, id, why == null ? null : TreeFormat.text(why), position, (int) crc.getValue());
        return why;
    }

    void close() {
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("closing {}: {}", item.file, e.toString());
        }
    }
}
