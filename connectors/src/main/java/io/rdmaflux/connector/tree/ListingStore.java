package io.rdmaflux.connector.tree;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * A {@link TreeListing}'s entries, packed (see its class comment for the memory this saves). A record, at an address (block index and offset), is: directory index
 * (u32), name (u16 length, bytes), kind (u8), mode (u16), mtime (i64), size (i64), link
 * (u16 length, 0xffff for none, bytes), checksum (u8 length, 0xff for none, bytes). Blocks
 * grow from 4 KiB to 256 KiB; a record never spans two. Each directory keeps its entries'
 * addresses, sorted by name bytes once the listing is sealed.
 */
final class ListingStore {

    /** The key of the root entry's own "directory" (a path never holds NUL). */
    private static final String ROOT = "\0";

    static final long MAX_BYTES = 3L << 29;
    private static final int OFFSET_BITS = 18;
    private static final int MAX_BLOCK = 1 << OFFSET_BITS;
    private static final int MAX_BLOCKS = 1 << (31 - OFFSET_BITS);
    private static final int FIXED = 4 + 2 + 1 + 2 + 8 + 8 + 2 + 1;

    final long maxBytes;
    final List<byte[]> blocks = new ArrayList<>();
    int[] used = new int[16];
    byte[] block;
    int pos;
    final Map<String, Dir> dirs = new HashMap<>();
    final List<String> dirPaths = new ArrayList<>();
    int count;
    long bytes;

    ListingStore(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** One directory's entries. */
    static final class Dir {
        final int index;
        int[] addresses = new int[4];
        int count;
        boolean sorted = true;

        Dir(int index) {
            this.index = index;
        }
    }

    /** Adds an entry; false when the listing would need more than its budget (nothing is added). */
    boolean add(TreeEntry e) {
        String path = e.path();
        String parent = path.isEmpty() ? ROOT : TreeFormat.parent(path);
        byte[] name = TreeFormat.utf8(path.isEmpty() ? "" : e.name());
        byte[] link = e.link() == null ? null : TreeFormat.utf8(e.link());
        byte[] sum = e.checksum();
        if (name.length > 0xfffe || link != null && link.length > 0xfffe || sum != null && sum.length > 0xfe) {
            throw new IllegalArgumentException("an entry too long to list: " + e);
        }
        int size = FIXED + name.length + (link == null ? 0 : link.length) + (sum == null ? 0 : sum.length);
        Dir d = dirs.get(parent);
        long more = size + (long) (TreeListing.ENTRY_BYTES - FIXED)
                + (d == null ? TreeListing.DIRECTORY_BYTES + 2L * parent.length() : 0);
        if (bytes + more > maxBytes) {
            return false;
        }
        if (d == null) {
            if (dirPaths.size() == Integer.MAX_VALUE) {
                return false;
            }
            d = new Dir(dirPaths.size());
            dirs.put(parent, d);
            dirPaths.add(parent);
        }
        int at = reserve(size);
        ByteBuffer b = ByteBuffer.wrap(block, pos, size);
        b.putInt(d.index).putShort((short) name.length).put(name).put((byte) e.kind().code())
                .putShort((short) e.mode()).putLong(e.mtimeNanos()).putLong(e.size());
        if (link == null) {
            b.putShort((short) 0xffff);
        } else {
            b.putShort((short) link.length).put(link);
        }
        if (sum == null) {
            b.put((byte) 0xff);
        } else {
            b.put((byte) sum.length).put(sum);
        }
        pos += size;
        used[blocks.size() - 1] = pos;
        if (d.count == d.addresses.length) {
            d.addresses = Arrays.copyOf(d.addresses, d.count * 2);
        }
        if (d.count > 0 && d.sorted && compareNames(d.addresses[d.count - 1], at) >= 0) {
            d.sorted = false;
        }
        d.addresses[d.count++] = at;
        count++;
        bytes += more;
        return true;
    }

    /** The address of room for {@code size} bytes, at {@link #pos} in {@link #block}. */
    private int reserve(int size) {
        if (block == null || pos + size > block.length) {
            if (blocks.size() == MAX_BLOCKS) {
                throw new IllegalStateException("a listing larger than 2 GiB");
            }
            int n = block == null ? 4096 : Math.min(MAX_BLOCK, block.length * 2);
            block = new byte[Math.max(n, size)];
            blocks.add(block);
            if (blocks.size() > used.length) {
                used = Arrays.copyOf(used, used.length * 2);
            }
            pos = 0;
        }
        return (blocks.size() - 1) << OFFSET_BITS | pos;
    }

    /**
     * Sorts each directory's entries by name where they did not arrive sorted; returns the
     * path of an entry listed twice, or null.
     */
    String seal() {
        for (Map.Entry<String, Dir> m : dirs.entrySet()) {
            Dir d = m.getValue();
            if (!d.sorted) {
                int[] a = Arrays.copyOf(d.addresses, d.count);
                mergeSort(a, new int[a.length], 0, a.length);
                d.addresses = a;
                d.sorted = true;
            }
            for (int i = 1; i < d.count; i++) {
                if (compareNames(d.addresses[i - 1], d.addresses[i]) == 0) {
                    return path(d.addresses[i]);
                }
            }
        }
        return null;
    }

    private void mergeSort(int[] a, int[] tmp, int from, int to) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid);
        mergeSort(a, tmp, mid, to);
        System.arraycopy(a, from, tmp, from, to - from);
        for (int i = from, l = from, r = mid; i < to; i++) {
            a[i] = r >= to || l < mid && compareNames(tmp[l], tmp[r]) <= 0 ? tmp[l++] : tmp[r++];
        }
    }

    private int compareNames(int x, int y) {
        byte[] bx = blocks.get(x >>> OFFSET_BITS);
        byte[] by = blocks.get(y >>> OFFSET_BITS);
        int ox = (x & (MAX_BLOCK - 1)) + 4;
        int oy = (y & (MAX_BLOCK - 1)) + 4;
        int lx = u16(bx, ox);
        int ly = u16(by, oy);
        return Arrays.compareUnsigned(bx, ox + 2, ox + 2 + lx, by, oy + 2, oy + 2 + ly);
    }

    /** The address of the entry at {@code path}, or -1. */
    int find(String path) {
        Dir d = dirs.get(path.isEmpty() ? ROOT : TreeFormat.parent(path));
        if (d == null) {
            return -1;
        }
        byte[] name = TreeFormat.utf8(path.substring(path.lastIndexOf('/') + 1));
        int lo = 0;
        int hi = d.count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int at = d.addresses[mid];
            byte[] b = blocks.get(at >>> OFFSET_BITS);
            int o = (at & (MAX_BLOCK - 1)) + 4;
            int c = Arrays.compareUnsigned(b, o + 2, o + 2 + u16(b, o), name, 0, name.length);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return at;
            }
        }
        return -1;
    }

    /** The offset of the fields after the name (kind, mode, mtime, size, ...) of the record at {@code at}. */
    private int fields(int at) {
        byte[] b = blocks.get(at >>> OFFSET_BITS);
        int o = (at & (MAX_BLOCK - 1)) + 4;
        return o + 2 + u16(b, o);
    }

    int kind(int at) {
        return blocks.get(at >>> OFFSET_BITS)[fields(at)] & 0xff;
    }

    long mtime(int at) {
        return ByteBuffer.wrap(blocks.get(at >>> OFFSET_BITS)).getLong(fields(at) + 3);
    }

    long size(int at) {
        return ByteBuffer.wrap(blocks.get(at >>> OFFSET_BITS)).getLong(fields(at) + 11);
    }

    private String path(int at) {
        byte[] b = blocks.get(at >>> OFFSET_BITS);
        int o = at & (MAX_BLOCK - 1);
        String dir = dirPaths.get(ByteBuffer.wrap(b).getInt(o));
        String name = new String(b, o + 6, u16(b, o + 4), StandardCharsets.UTF_8);
        return dir.equals(ROOT) ? "" : dir.isEmpty() ? name : dir + "/" + name;
    }

    TreeEntry entry(int at) {
        byte[] b = blocks.get(at >>> OFFSET_BITS);
        ByteBuffer f = ByteBuffer.wrap(b);
        f.position(fields(at));
        TreeEntry.Kind kind = TreeEntry.Kind.of(f.get() & 0xff);
        int mode = f.getShort() & 0xffff;
        long mtime = f.getLong();
        long size = f.getLong();
        int linkLength = f.getShort() & 0xffff;
        String link = null;
        if (linkLength != 0xffff) {
            link = new String(b, f.position(), linkLength, StandardCharsets.UTF_8);
            f.position(f.position() + linkLength);
        }
        int sumLength = f.get() & 0xff;
        byte[] sum = null;
        if (sumLength != 0xff) {
            sum = Arrays.copyOfRange(b, f.position(), f.position() + sumLength);
        }
        return new TreeEntry(path(at), kind, mode, mtime, size, link, sum);
    }

    /** The entries in the order they were added: the blocks' records one after another. */
    Iterator<TreeEntry> iterator() {
        return new Iterator<>() {
            int block;
            int offset;

            @Override
            public boolean hasNext() {
                while (block < blocks.size() && offset >= used[block]) {
                    block++;
                    offset = 0;
                }
                return block < blocks.size();
            }

            @Override
            public TreeEntry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int at = block << OFFSET_BITS | offset;
                offset += length(at);
                return entry(at);
            }
        };
    }

    private int length(int at) {
        byte[] b = blocks.get(at >>> OFFSET_BITS);
        int o = fields(at) + 1 + 2 + 8 + 8;
        int linkLength = u16(b, o);
        o += 2 + (linkLength == 0xffff ? 0 : linkLength);
        int sumLength = b[o] & 0xff;
        o += 1 + (sumLength == 0xff ? 0 : sumLength);
        return o - (at & (MAX_BLOCK - 1));
    }

    private static int u16(byte[] b, int o) {
        return (b[o] & 0xff) << 8 | b[o + 1] & 0xff;
    }
}
