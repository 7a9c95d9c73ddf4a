package io.rdmaflux.connector.tree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A set of byte strings with a small state and an optional value each, packed for entries
 * counted in millions: each key's bytes, state and value in shared byte blocks, found through an
 * open-addressing table of their addresses. About 15 bytes a key besides its own (5 in its block, 2 to 4 table slots), where a {@code HashSet<String>} takes about
 * 80. Not thread-safe.
 */
final class PackedSet {

    private static final int OFFSET_BITS = 18;
    private static final int MAX_BLOCK = 1 << OFFSET_BITS;
    private static final int MAX_BLOCKS = 1 << (31 - OFFSET_BITS);

    private final List<byte[]> blocks = new ArrayList<>();
    private byte[] block;
    private int pos;
    /** Addresses + 1 of the records (0: empty), a power of two long, at most half full. */
    private int[] table = new int[16];
    private int size;
    private long blockBytes;
    /** Each set hashes differently: a sender cannot choose keys that all land on one slot. */
    private final int seed = ThreadLocalRandom.current().nextInt();

    /** The bytes this set holds (blocks and table), as a memory budget counts them. */
    long bytes() {
        return blockBytes + 4L * table.length;
    }

    int size() {
        return size;
    }

    /**
     * Adds {@code key} (at most 65,535 bytes) with {@code state} (a byte), or sets the state of
     * the key already there; returns the key's address.
     */
    int put(byte[] key, int state) {
        return put(key, state, null);
    }

    /**
     * Adds {@code key} with {@code state} and {@code value} (each at most 65,535 bytes), or sets
     * the state of the key already there (its value stays); returns the key's address.
     */
    int put(byte[] key, int state, byte[] value) {
        int at = find(key);
        if (at >= 0) {
            setState(at, state);
            return at;
        }
        byte[] v = value == null ? new byte[0] : value;
        if (key.length > 0xffff || v.length > 0xffff) {
            throw new IllegalArgumentException("a key of " + key.length + " bytes or a value of " + v.length);
        }
        if ((size + 1) * 2L > table.length) {
            grow();
        }
        int n = 5 + key.length + v.length;
        if (block == null || pos + n > block.length) {
            if (blocks.size() == MAX_BLOCKS) {
                throw new IllegalStateException("a set larger than 2 GiB");
            }
            // Growing blocks: a small set stays small. A record always fits one (131,075 bytes at most).
            block = new byte[Math.max(n, block == null ? 1024 : Math.min(MAX_BLOCK, block.length * 2))];
            blocks.add(block);
            blockBytes += block.length;
            pos = 0;
        }
        at = (blocks.size() - 1) << OFFSET_BITS | pos;
        block[pos] = (byte) state;
        block[pos + 1] = (byte) (key.length >>> 8);
        block[pos + 2] = (byte) key.length;
        System.arraycopy(key, 0, block, pos + 3, key.length);
        int o = pos + 3 + key.length;
        block[o] = (byte) (v.length >>> 8);
        block[o + 1] = (byte) v.length;
        System.arraycopy(v, 0, block, o + 2, v.length);
        pos += n;
        insert(at, hash(key, 0, key.length));
        size++;
        return at;
    }

    /** Whether {@code key} is in the set. */
    boolean contains(byte[] key) {
        return find(key) >= 0;
    }

    /** The state of {@code key}, or -1 when it is not in the set. */
    int state(byte[] key) {
        int at = find(key);
        return at < 0 ? -1 : blocks.get(at >>> OFFSET_BITS)[at & (MAX_BLOCK - 1)] & 0xff;
    }

    /** The value of {@code key} (empty if it was given none), or null when it is not in the set. */
    byte[] value(byte[] key) {
        int at = find(key);
        if (at < 0) {
            return null;
        }
        byte[] b = blocks.get(at >>> OFFSET_BITS);
        int o = (at & (MAX_BLOCK - 1)) + 3 + ((b[(at & (MAX_BLOCK - 1)) + 1] & 0xff) << 8 | b[(at & (MAX_BLOCK - 1)) + 2] & 0xff);
        int len = (b[o] & 0xff) << 8 | b[o + 1] & 0xff;
        return Arrays.copyOfRange(b, o + 2, o + 2 + len);
    }

    private void setState(int at, int state) {
        blocks.get(at >>> OFFSET_BITS)[at & (MAX_BLOCK - 1)] = (byte) state;
    }

    private int find(byte[] key) {
        int mask = table.length - 1;
        for (int i = hash(key, 0, key.length) & mask; ; i = (i + 1) & mask) {
            int slot = table[i];
            if (slot == 0) {
                return -1;
            }
            int at = slot - 1;
            byte[] b = blocks.get(at >>> OFFSET_BITS);
            int o = at & (MAX_BLOCK - 1);
            int len = (b[o + 1] & 0xff) << 8 | b[o + 2] & 0xff;
            if (Arrays.equals(b, o + 3, o + 3 + len, key, 0, key.length)) {
                return at;
            }
        }
    }

    private void insert(int at, int hash) {
        int mask = table.length - 1;
        int i = hash & mask;
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = at + 1;
    }

    private void grow() {
        int[] old = table;
        table = new int[old.length * 2];
        for (int slot : old) {
            if (slot != 0) {
                int at = slot - 1;
                byte[] b = blocks.get(at >>> OFFSET_BITS);
                int o = at & (MAX_BLOCK - 1);
                int len = (b[o + 1] & 0xff) << 8 | b[o + 2] & 0xff;
                insert(at, hash(b, o + 3, len));
            }
        }
    }

    /** A well-mixed hash of the bytes (a sender chooses the keys: spread them over the whole table). */
    private int hash(byte[] b, int from, int len) {
        int h = seed;
        for (int i = from; i < from + len; i++) {
            h = (h ^ (b[i] & 0xff)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h;
    }
}
