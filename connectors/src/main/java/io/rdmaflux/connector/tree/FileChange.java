package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.tree.TreeWalker.Item;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Change detection on a file that was read: whether what was sent is the file the walk saw.
 * A file is sent as OK only when all of the walk's size was read and its size, mtime and ctime
 * are still the walk's; otherwise its FILE_END carries the reason. {@link #verdict} is the rule,
 * without I/O; {@link #since} takes the file's attributes and applies it.
 */
final class FileChange {

    private static final String AFTER = "unix:size,lastModifiedTime,ctime";

    /** A file's attributes after the read. */
    record Stat(long size, long mtimeNanos, long ctimeNanos) {
    }

    private FileChange() {
    }

    /**
     * Why the file {@code item} names is not the one the walk saw, or null when it is.
     *
     * @param size the walk's size, what the read was to send
     * @param read the bytes read
     */
    static String since(Item item, long size, long read) {
        if (read < size) {
            return verdict(item.entry, item.ctimeNanos, size, read, null);   // no stat needed
        }
        Stat now;
        try {
            Map<String, Object> a = Files.readAttributes(item.file, AFTER, TreeWalker.how(item));
            now = new Stat((Long) a.get("size"), ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS),
                    ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS));
        } catch (IOException e) {
            now = null;
        }
        return verdict(item.entry, item.ctimeNanos, size, read, now);
    }

    /**
     * The rule: a short read first, then a file gone, then its size, then its times.
     *
     * @param walk      the entry as the walk saw it (its mtime)
     * @param walkCtime the ctime the walk saw
     * @param size      the walk's size
     * @param read      the bytes read
     * @param now       the attributes after the read, null when the file could not be stat'ed
     */
    static String verdict(TreeEntry walk, long walkCtime, long size, long read, Stat now) {
        if (read < size) {
            return "shrank while it was read (" + read + " of " + size + " bytes)";
        }
        if (now == null) {
            return "vanished while it was read";
        }
        if (now.size() != size) {
            return "changed size while it was read (" + size + " -> " + now.size() + " bytes)";
        }
        if (now.mtimeNanos() != walk.mtimeNanos() || now.ctimeNanos() != walkCtime) {
            return "changed while it was read";
        }
        return null;
    }
}
