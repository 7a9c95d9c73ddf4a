package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.TreeFormat.malformed;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * What a tree holds, entry by entry (path, kind, mode, size, mtime, link target, and with
 * checksums each file's SHA-256): the destination's side of a sync.
 *
 * <p>A sync runs in three steps. The receiving host lists its destination and sends the
 * listing back ({@link #source}, a tree stream with no contents); the sending host reads it
 * ({@link #read}) and sends the tree against it
 * ({@link TreeSourceOptions#withBaseline}): every entry is still listed, but files the
 * destination already has carry no data; the receiving {@link TreeSink} keeps those, writes
 * the rest and, with {@link TreeSinkOptions#delete()}, removes what the source does not list,
 * unless anything failed.
 *
 * <pre>{@code
 * // receiving host: send the listing back
 * Source listing = TreeListing.source(dest, false);
 * // sending host
 * TreeListing there = TreeListing.read(stream.receiveChunks()).block();
 * TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
 *         .withBaseline(there, TreeSourceOptions.Compare.SIZE_AND_MTIME));
 * }</pre>
 *
 * <p><b>Memory.</b> A listing holds every entry, packed: each directory's entries as records of
 * name bytes and fixed fields in shared byte blocks ({@value #ENTRY_BYTES} bytes and the name's,
 * and the link's and checksum's, per entry), found by binary search on their names; a
 * directory's path is kept once. {@link TreeEntry} objects are made only when asked for. A
 * million entries with 10-byte names take about 46 MB (as a map of entries they took 150 MB,
 * more than the tools' default heap). {@link #read} refuses a listing that needs more than a
 * byte budget, by default a third of the heap ({@link #defaultMaxBytes()}).
 */
public final class TreeListing {

    /** The bytes an entry costs besides its name, link and checksum: its record's fixed fields and index. */
    public static final int ENTRY_BYTES = 36;
    /** The bytes a directory holding entries costs besides its path: its index, map entry and key. */
    static final int DIRECTORY_BYTES = 160;
    /** The key of the root entry's own "directory" (a path never holds NUL). */
    private static final String ROOT = "\0";

    private final Store store;
    private final List<String> problems;

    private TreeListing(Store store, List<String> problems) {
        this.store = store;
        this.problems = List.copyOf(problems);
    }

    /**
     * The most bytes {@link #read(Publisher)} lets a listing hold: a third of the heap
     * ({@code -Xmx}; 64 MiB at the launchers' default 192 MiB), at most 1.5 GiB.
     */
    public static long defaultMaxBytes() {
        return Math.min(Runtime.getRuntime().maxMemory() / 3, Store.MAX_BYTES);
    }

    /**
     * A listing of these entries.
     *
     * @throws IllegalArgumentException when a path is given twice
     */
    public static TreeListing of(Collection<TreeEntry> entries) {
        Store store = new Store(Store.MAX_BYTES);
        for (TreeEntry e : entries) {
            store.add(e);
        }
        String twice = store.seal();
        if (twice != null) {
            throw new IllegalArgumentException("'" + twice + "' is listed twice");
        }
        return new TreeListing(store, List.of());
    }

    /**
     * The entries of the tree at {@code root} in the stream's order (a directory before its
     * entries), walked on {@code boundedElastic} as they are requested; empty when
     * {@code root} does not exist. Entries that cannot be read are left out. Links inside the
     * tree are not followed.
     *
     * @param checksums whether each file's SHA-256 is computed (reads every file)
     */
    public static Flux<TreeEntry> scan(Path root, boolean checksums) {
        return scan(root, checksums, Schedulers.boundedElastic());
    }

    /** {@link #scan(Path, boolean)} on {@code scheduler}. */
    public static Flux<TreeEntry> scan(Path root, boolean checksums, Scheduler scheduler) {
        return Flux.<TreeEntry, TreeWalker>generate(() -> new TreeWalker(root, false), (walker, sink) -> {
            try {
                if (!Files.exists(root)) {
                    sink.complete();
                    return walker;
                }
                for (;;) {
                    TreeWalker.Item item = walker.peek();
                    if (item == null) {
                        sink.complete();
                        return walker;
                    }
                    walker.advance();
                    if (!item.isNotice()) {
                        TreeEntry e = item.entry;
                        if (checksums && e.kind() == TreeEntry.Kind.FILE) {
                            e = e.withChecksum(Checksums.sha256(item.file, TreeWalker.how(item)));
                        }
                        sink.next(e);
                        return walker;
                    }
                }
            } catch (IOException e) {
                sink.error(IoErrors.source("tree " + root, e));
                return walker;
            }
        }, TreeWalker::close).subscribeOn(scheduler);
    }

    /** The listing of the tree at {@code root}, read here (see {@link #scan(Path, boolean)}), packed as it is walked. */
    public static Mono<TreeListing> local(Path root, boolean checksums) {
        return Mono.defer(() -> {
            Store store = new Store(Store.MAX_BYTES);
            return scan(root, checksums).doOnNext(store::add).then(Mono.fromCallable(() -> {
                store.seal();   // a walk lists no path twice
                return new TreeListing(store, List.of());
            }));
        });
    }

    /**
     * The listing of the tree at {@code root} as a tree stream, to send to the other host:
     * entries only, with their checksums if asked; an empty listing when {@code root} does not
     * exist (a first sync). Problems (a directory that cannot be listed) travel as notices.
     */
    public static Source source(Path root, boolean checksums) {
        return source(root, checksums, SourceOptions.defaults());
    }

    /** {@link #source(Path, boolean)} with these buffers and scheduler. */
    public static Source source(Path root, boolean checksums, SourceOptions io) {
        return TreeSource.listing(root, checksums, TreeSourceOptions.defaults().withIo(io));
    }

    /** {@link #read(Publisher, long)} with {@link #defaultMaxBytes()}. */
    public static Mono<TreeListing> read(Publisher<Chunk> stream) {
        return Mono.defer(() -> read(stream, defaultMaxBytes()));
    }

    /**
     * Reads a listing sent by {@link #source}; releases every chunk. Fails with a PROTOCOL
     * {@link io.rdmaflux.protocol.ProtocolException} for a stream that is not a well-formed
     * listing, lists a path twice, or would hold more than {@code maxBytes} bytes here (see
     * the class comment), the last with a message that names the limit and how to raise it.
     */
    public static Mono<TreeListing> read(Publisher<Chunk> stream, long maxBytes) {
        return Mono.defer(() -> {
            Collector collector = new Collector(maxBytes);
            TreeParser parser = new TreeParser(collector);
            return Flux.from(stream)
                    .doOnNext(c -> {
                        try {
                            parser.feed(c.buffer());
                        } catch (IOException e) {
                            throw Exceptions.propagate(e);
                        } finally {
                            c.release();
                        }
                    })
                    .doOnDiscard(Chunk.class, Chunk::releaseQuietly)
                    .then(Mono.fromCallable(() -> {
                        parser.finish();
                        String twice = collector.store.seal();
                        if (twice != null) {
                            throw malformed("'" + twice + "' is listed twice");
                        }
                        return new TreeListing(collector.store, collector.problems);
                    }));
        });
    }

    /** The entry at {@code path} (relative, {@code /}-separated; "" for the root). */
    public Optional<TreeEntry> get(String path) {
        int at = store.find(path);
        return at < 0 ? Optional.empty() : Optional.of(store.entry(at));
    }

    /**
     * Whether the listing has a regular file at {@code path} of this size and modification
     * time: a sync's quick check, without making an entry.
     */
    boolean hasFile(String path, long size, long mtimeNanos) {
        int at = store.find(path);
        return at >= 0 && store.kind(at) == TreeEntry.Kind.FILE.code() && store.size(at) == size
                && store.mtime(at) == mtimeNanos;
    }

    /** The number of entries. */
    public int size() {
        return store.count;
    }

    /** What the listing holds, in bytes, as its budget counts them (see the class comment). */
    public long bytes() {
        return store.bytes;
    }

    /** The entries in the stream's order, made as they are iterated. */
    public Collection<TreeEntry> entries() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<TreeEntry> iterator() {
                return store.iterator();
            }

            @Override
            public int size() {
                return store.count;
            }
        };
    }

    /** What the listing side could not read, as {@code "path: message"}. */
    public List<String> problems() {
        return problems;
    }

    @Override
    public String toString() {
        return "TreeListing[" + store.count + " entries]";
    }

    /**
     * The packed entries. A record, at an address (block index and offset), is: directory index
     * (u32), name (u16 length, bytes), kind (u8), mode (u16), mtime (i64), size (i64), link
     * (u16 length, 0xffff for none, bytes), checksum (u8 length, 0xff for none, bytes). Blocks
     * grow from 4 KiB to 256 KiB; a record never spans two. Each directory keeps its entries'
     * addresses, sorted by name bytes once the listing is sealed.
     */
    private static final class Store {

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

        Store(long maxBytes) {
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
            long more = size + (long) (ENTRY_BYTES - FIXED)
                    + (d == null ? DIRECTORY_BYTES + 2L * parent.length() : 0);
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

    /** Gathers a listing's entries, refusing anything a listing cannot hold. */
    private static final class Collector implements TreeParser.Handler {

        final Store store;
        final List<String> problems = new ArrayList<>();
        long next;

        Collector(long maxBytes) {
            this.store = new Store(Math.min(maxBytes, Store.MAX_BYTES));
        }

        @Override
        public void header(int flags) throws IOException {
            if ((flags & TreeFormat.FLAG_LISTING) == 0) {
                throw malformed("a tree with contents where a listing was expected");
            }
        }

        @Override
        public void entry(int id, TreeEntry entry, int flags) throws IOException {
            if ((id & 0xffffffffL) != next++) {
                throw malformed("entry " + id + " out of sequence");
            }
            if ((flags & TreeFormat.F_DATA) != 0) {
                throw malformed("a listing entry with contents");
            }
            if (!store.add(entry)) {
                throw malformed("the listing needs more than " + mib(store.maxBytes) + " of memory here (its limit, "
                        + "a third of the Java heap) at entry " + (next - 1) + ": raise the heap with "
                        + "RDFLUX_JAVA_OPTS=-Xmx<size> (e.g. -Xmx1g), or sync a smaller tree");
            }
        }

        private static String mib(long bytes) {
            return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes + " bytes";
        }

        @Override
        public void data(int id, ByteBuffer data) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void hole(int id, long count) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void fileEnd(int id, String failure, long length, int crc) throws IOException {
            throw malformed("contents in a listing");
        }

        @Override
        public void notice(boolean error, String path, String message) {
            if (problems.size() < 1000) {
                problems.add((path.isEmpty() ? "." : path) + ": " + message);
            }
        }

        @Override
        public void end(long entries, long bytes, long failures) throws IOException {
            if (entries != next) {
                throw malformed("END counts " + entries + " entries, the listing had " + next);
            }
        }
    }
}
