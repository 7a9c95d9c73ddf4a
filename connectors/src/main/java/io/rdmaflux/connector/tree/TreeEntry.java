package io.rdmaflux.connector.tree;

import java.util.Arrays;
import java.util.Objects;

/**
 * One entry of a directory tree as the tree stream carries it (see {@code docs/tree-format.md}).
 *
 * @param path       the path relative to the tree's root, components separated by {@code /};
 *                   empty for the root itself
 * @param kind       what the entry is
 * @param mode       permission bits ({@code 07777}; the sink drops setuid and setgid from files)
 * @param mtimeNanos modification time in nanoseconds since the epoch
 * @param size       a file's length in bytes; 0 for other kinds
 * @param link       a symbolic link's target, or a hard link's earlier path; null otherwise
 * @param checksum   the file's SHA-256 in a listing made with checksums; null otherwise
 */
public record TreeEntry(String path, Kind kind, int mode, long mtimeNanos, long size, String link, byte[] checksum) {

    /** The kinds of entry a tree stream carries; the codes are the format's. */
    public enum Kind {
        /** A regular file. */
        FILE(1),
        /** A directory; its entries follow it in the stream. */
        DIRECTORY(2),
        /** A symbolic link, carried as a link (its target is text, never followed by the sink). */
        SYMLINK(3),
        /** A second name for a regular file that came earlier in the same stream. */
        HARD_LINK(4);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The kind's code in the format. */
        public int code() {
            return code;
        }

        /** The kind for a code, or null for one this version does not know. */
        public static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    public TreeEntry {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
    }

    /** The last component of the path (empty for the root). */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** This entry with a checksum. */
    TreeEntry withChecksum(byte[] sum) {
        return new TreeEntry(path, kind, mode, mtimeNanos, size, link, sum);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreeEntry e && path.equals(e.path) && kind == e.kind && mode == e.mode
                && mtimeNanos == e.mtimeNanos && size == e.size && Objects.equals(link, e.link)
                && Arrays.equals(checksum, e.checksum);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, kind, mode, mtimeNanos, size, link) * 31 + Arrays.hashCode(checksum);
    }

    @Override
    public String toString() {
        return "TreeEntry[" + kind + " '" + path + "', mode " + Integer.toOctalString(mode) + ", " + size
                + " bytes, mtime " + mtimeNanos + (link != null ? ", link " + link : "") + "]";
    }
}
