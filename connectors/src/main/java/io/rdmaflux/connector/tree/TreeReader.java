package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.tree.TreeWalker.Item;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The engine of {@link TreeSource}: one subscription's walk and reads.
 *
 * <p>Two kinds of task run on the options' scheduler. The <em>packer</em> walks the tree and
 * fills chunks with records in walk order: entries, notices, and the contents of small files
 * packed one after another. Each large file goes to a <em>lane</em> of its own, which reads it
 * sequentially into chunks that each hold one DATA record (or a HOLE), so that up to
 * {@code parallelFiles} large files are read at once and their chunks interleave in the stream.
 * A lane starts only after the chunk that holds its file's ENTRY has been emitted, and the END
 * record is written only after every lane has emitted its last chunk, so the records' order
 * rules hold whatever the threads do.
 *
 * <p>Every chunk takes one of a fixed number of permits, returned when the subscriber releases
 * the chunk; a task without a permit waits in a queue and is rescheduled by the release. A lane
 * yields after each chunk when others wait, so permits are shared. Cancel, error and completion
 * set {@code stopped} and reschedule every waiting task, so each closes its own file.
 */
final class TreeReader {

    private static final Logger log = Loggers.getLogger(TreeReader.class);
    private static final String AFTER = "unix:size,lastModifiedTime,ctime";
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();
    /** Room a lane keeps in front of its data for a HOLE record and the DATA header. */
    private static final int LANE_HEAD = TreeFormat.HOLE_RECORD + TreeFormat.DATA_HEADER;

    private enum Stop { FULL, WAIT, ENDED }

    private enum Permit { GRANTED, QUEUED, STOPPED }

    private final Path root;
    private final List<Path> container;
    private final String what;
    private final TreeSourceOptions options;
    private final boolean listing;
    private final boolean checksums;
    private final FluxSink<Chunk> out;
    private final BufferPool pool;
    private final Scheduler scheduler;
    private final int lanePayload;
    private final Runnable packer = this::runPacker;

    private final Object lock = new Object();
    private int permits;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int activeLanes;
    private boolean packerParked;
    private volatile boolean stopped;

    // Packer state: touched by the packer task only, which never runs twice at once.
    private TreeWalker walker;
    private boolean headerWritten;
    private Pending held;
    private Packing current;
    private final List<Lane> toStart = new ArrayList<>();
    /** Files with several names: their file key's text, and the path they were sent under first. */
    private final PackedSet linkTargets = new PackedSet();
    private int nextId;
    private long okBytes;
    private long failures;

    private TreeReader(Path root, List<Path> container, TreeSourceOptions options, boolean listing, boolean checksums,
                       FluxSink<Chunk> out) {
        this.root = root;
        this.container = container;
        this.what = "tree " + root;
        this.options = options;
        this.listing = listing;
        this.checksums = checksums;
        this.out = out;
        this.pool = options.io().pool() != null ? options.io().pool()
                : new BufferPool("tree source " + root, options.io().chunkSize(), options.io().buffers());
        this.scheduler = options.io().scheduler();
        this.permits = options.io().permits();
        int room = pool.bufferSize() - LANE_HEAD - TreeFormat.FILE_END_MAX;
        this.lanePayload = room >= 4096 ? room & ~4095 : room;
    }

    /**
     * A cold Flux of the tree stream; each subscription walks afresh.
     *
     * @param root      the tree's root, or for a container (several roots) its description
     * @param container the roots of a container, or null for a tree of one root
     * @param listing   entries only, no contents (a {@link TreeListing})
     * @param checksums with {@code listing}: each file's SHA-256
     */
    static Flux<Chunk> flux(Path root, List<Path> container, TreeSourceOptions options, boolean listing,
                            boolean checksums) {
        return Flux.<Chunk>create(sink -> {
            TreeReader reader = new TreeReader(root, container, options, listing, checksums, sink);
            sink.onDispose(reader::stop);
            reader.schedule(reader.packer);
        }, FluxSink.OverflowStrategy.BUFFER)
                // Chunks queued in create's buffer at cancel are discarded: give them back.
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    // ---- permits, scheduling, termination --------------------------------------------------

    /**
     * Takes a permit, or queues {@code task} to run again when one comes back. STOPPED tells
     * the task to close what it holds: a queued task is rescheduled by {@link #stop()} instead.
     */
    private Permit takePermit(Runnable task) {
        synchronized (lock) {
            if (stopped) {
                return Permit.STOPPED;
            }
            if (permits > 0) {
                permits--;
                return Permit.GRANTED;
            }
            waiting.add(task);
            return Permit.QUEUED;
        }
    }

    /** Lets a waiting task go first: true when {@code task} was queued behind it. */
    private boolean yieldTo(Runnable task) {
        Runnable next;
        synchronized (lock) {
            if (waiting.isEmpty() || stopped) {
                return false;
            }
            waiting.add(task);
            next = permits > 0 ? waiting.poll() : null;
        }
        if (next != null) {
            schedule(next);
        }
        return true;
    }

    /** A pooled buffer (a permit already taken) whose release returns the permit. */
    private Chunk lease() {
        Chunk pooled;
        try {
            pooled = pool.acquire();
        } catch (RuntimeException e) {
            permitBack();
            throw e;
        }
        return Chunk.of(pooled.buffer(), () -> {
            pooled.release();
            permitBack();
        });
    }

    private void permitBack() {
        Runnable next;
        synchronized (lock) {
            permits++;
            next = waiting.poll();
        }
        if (next != null) {
            schedule(next);
        }
    }

    private void schedule(Runnable task) {
        try {
            scheduler.schedule(task);
        } catch (Throwable e) {
            if (!stopped) {
                fail(new IOException("could not schedule the read (" + e + ")", e));
            }
            // Stopped: run the task here so that it closes its file.
            task.run();
        }
    }

    private void emit(Chunk c) {
        if (!c.buffer().hasRemaining() || stopped) {
            c.release();
            return;
        }
        out.next(c);
    }

    private void stop() {
        List<Runnable> wake;
        synchronized (lock) {
            stopped = true;
            wake = new ArrayList<>(waiting);
            waiting.clear();
            if (packerParked) {
                packerParked = false;
                wake.add(packer);
            }
        }
        wake.forEach(this::schedule);
    }

    private void fail(Throwable t) {
        boolean first;
        synchronized (lock) {
            first = !stopped;
        }
        stop();
        if (first) {
            out.error(IoErrors.source(what, t));
        }
    }

    // ---- the packer ------------------------------------------------------------------------

    private void runPacker() {
        try {
            for (;;) {
                Permit p = takePermit(packer);
                if (p != Permit.GRANTED) {
                    if (p == Permit.STOPPED) {
                        closePacker();
                    }
                    return;
                }
                Chunk c = lease();
                Stop s;
                try {
                    s = fill(c.buffer());
                } catch (Throwable t) {
                    c.release();
                    throw t;
                }
                c.buffer().flip();
                emit(c);
                startLanes();
                if (s == Stop.ENDED) {
                    closePacker();
                    synchronized (lock) {
                        stopped = true;
                    }
                    out.complete();
                    return;
                }
                if (s == Stop.WAIT) {
                    synchronized (lock) {
                        if (!mayGoOn()) {
                            packerParked = true;
                            return;
                        }
                    }
                }
            }
        } catch (Throwable t) {
            closePacker();
            fail(t);
        }
    }

    /** Whether what the packer waits for has happened (called holding the lock). */
    private boolean mayGoOn() {
        return held != null ? activeLanes < options.parallelFiles() : activeLanes == 0;
    }

    private void startLanes() {
        for (Lane lane : toStart) {
            schedule(lane);
        }
        toStart.clear();
    }

    private Stop fill(ByteBuffer b) throws IOException {
        if (!headerWritten) {
            TreeFormat.putHeader(b, listing ? TreeFormat.FLAG_LISTING : 0);
            headerWritten = true;
            if (container != null) {
                walker = new TreeWalker(container, options.followSymlinks());
            } else if (listing && (!Files.exists(root) || isSpecial(root))) {
                // The listing of a missing destination is empty; so is that of a device or FIFO,
                // which the copy writes through (there is nothing in it to compare or keep).
                walker = null;
            } else {
                walker = new TreeWalker(root, options.followSymlinks());
            }
        }
        for (;;) {
            if (stopped) {
                return Stop.FULL;
            }
            if (current != null) {
                if (!current.pack(b)) {
                    return Stop.FULL;
                }
                current = null;
                continue;
            }
            if (held == null) {
                Item item = walker == null ? null : walker.peek();
                if (item == null) {
                    synchronized (lock) {
                        if (activeLanes > 0) {
                            return Stop.WAIT;
                        }
                    }
                    if (b.remaining() < TreeFormat.END_RECORD) {
                        return Stop.FULL;
                    }
                    TreeFormat.putEnd(b, nextId, okBytes, failures);
                    return Stop.ENDED;
                }
                held = prepare(item);
                walker.advance();
            }
            if (held.lane) {
                synchronized (lock) {
                    if (activeLanes >= options.parallelFiles()) {
                        return Stop.WAIT;
                    }
                }
            }
            if (b.remaining() < held.size) {
                return Stop.FULL;
            }
            Pending p = held;
            held = null;
            p.write(b);
        }
    }

    /** What to write for an item; opens a file to be read (blocking). */
    private Pending prepare(Item item) throws IOException {
        if (item.isNotice()) {
            return new Pending(item, null, 0, false, null);
        }
        TreeEntry e = item.entry;
        if (e.kind() != TreeEntry.Kind.FILE) {
            return new Pending(item, e, item.container ? TreeFormat.F_CONTAINER : 0, false, null);
        }
        if (listing) {
            return new Pending(item, checksums ? withChecksum(item) : e, 0, false, null);
        }
        int flags = 0;
        if (options.hardLinks() && item.nlink > 1 && item.fileKey != null) {
            // The key's text (device and inode): packed, a tree whose every file has another
            // name elsewhere costs some 50 bytes a file here, not the 130 of a map of objects.
            byte[] key = TreeFormat.utf8(item.fileKey.toString());
            byte[] first = linkTargets.value(key);
            if (first != null) {
                return new Pending(item, new TreeEntry(e.path(), TreeEntry.Kind.HARD_LINK, e.mode(), e.mtimeNanos(),
                        0, new String(first, java.nio.charset.StandardCharsets.UTF_8), null), 0, false, null);
            }
            linkTargets.put(key, 0, TreeFormat.utf8(e.path()));
            flags = TreeFormat.F_LINK_TARGET;
        }
        if (current(item)) {
            return new Pending(item, e, flags, false, null);
        }
        FileChannel ch;
        try {
            OpenOption[] open = item.follow ? new OpenOption[] {StandardOpenOption.READ}
                    : new OpenOption[] {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
            ch = FileChannel.open(item.file, open);
        } catch (NoSuchFileException x) {
            return new Pending(TreeWalker.notice(false, e.path(), "vanished before it was read"), null, 0, false, null);
        } catch (IOException x) {
            Pending p = new Pending(item, e, flags | TreeFormat.F_DATA, false, null);
            p.failure = "cannot open it: " + IoErrors.phrase(x);
            return p;
        }
        // The walk's size: a file that changed since is caught by the check after the read.
        long size = e.size();
        boolean lane = options.parallelFiles() > 0 && size >= options.largeFileSize()
                && (flags & TreeFormat.F_LINK_TARGET) == 0;
        return new Pending(item, e, flags | TreeFormat.F_DATA, lane, new Opened(item, ch, size));
    }

    /** Whether the baseline (the destination's listing) already has this file as it is here. */
    private boolean current(Item item) {
        TreeListing baseline = options.baseline();
        if (baseline == null) {
            return false;
        }
        TreeEntry here = item.entry;
        if (options.compare() == TreeSourceOptions.Compare.SIZE_AND_MTIME) {
            return baseline.hasFile(here.path(), here.size(), here.mtimeNanos());
        }
        TreeEntry there = baseline.get(here.path()).orElse(null);
        if (there == null || there.kind() != TreeEntry.Kind.FILE || there.size() != here.size()
                || there.checksum() == null) {
            return false;
        }
        try {
            return java.util.Arrays.equals(there.checksum(), Checksums.sha256(item.file, TreeWalker.how(item)));
        } catch (IOException e) {
            return false;   // sent, and its read failure reported then
        }
    }

    private TreeEntry withChecksum(Item item) {
        try {
            return item.entry.withChecksum(Checksums.sha256(item.file, TreeWalker.how(item)));
        } catch (IOException e) {
            log.debug("no checksum for {}: {}", item.file, e.toString());
            return item.entry;   // compared as different
        }
    }

    private void closePacker() {
        if (walker != null) {
            walker.close();
        }
        if (held != null && held.opened != null) {
            held.opened.close();
        }
        held = null;
        if (current != null) {
            current.opened.close();
            current = null;
        }
        for (Lane lane : toStart) {
            lane.opened.close();
        }
        toStart.clear();
    }

    /** One item, ready to be written: its record's size is known. */
    private final class Pending {
        final Item item;
        final TreeEntry entry;
        final int flags;
        final boolean lane;
        final Opened opened;
        final byte[] path;
        final byte[] link;
        final int size;
        String failure;

        Pending(Item item, TreeEntry entry, int flags, boolean lane, Opened opened) {
            this.item = item;
            this.entry = entry;
            this.flags = flags;
            this.lane = lane;
            this.opened = opened;
            this.path = TreeFormat.utf8(item.path);
            if (entry == null) {
                this.link = TreeFormat.text(item.message);
                this.size = TreeFormat.noticeSize(path, link);
            } else {
                this.link = TreeFormat.utf8(entry.link());
                int s = TreeFormat.entrySize(path, link, entry.checksum());
                // A file read here needs room for its FILE_END in the same chunk at least.
                this.size = (flags & TreeFormat.F_DATA) != 0 && !lane ? s + TreeFormat.FILE_END_MAX : s;
            }
        }

        void write(ByteBuffer b) {
            TreeListener listener = options.listener();
            if (entry == null) {
                TreeFormat.putNotice(b, item.error, path, link);
                if (item.error) {
                    failures++;
                    listener.onFailure(new TreeFailure(item.path, item.message));
                } else {
                    listener.onWarning(item.path, item.message);
                }
                return;
            }
            int id = nextId++;
            TreeFormat.putEntry(b, id, entry, flags, path, link);
            if ((flags & TreeFormat.F_DATA) == 0) {
                listener.onDone(entry, 0);
            } else if (failure != null) {
                TreeFormat.putFileEnd(b, id, TreeFormat.text(failure), 0, 0);
                failures++;
                listener.onFailure(new TreeFailure(entry.path(), failure));
            } else if (lane) {
                synchronized (lock) {
                    activeLanes++;
                }
                toStart.add(new Lane(id, opened));
            } else {
                current = new Packing(id, opened);
            }
        }
    }

    /** An open file being read, and what is known about it. */
    private final class Opened {
        final Item item;
        final FileChannel channel;
        final long size;
        final CRC32C crc = new CRC32C();
        long position;
        String failure;

        Opened(Item item, FileChannel channel, long size) {
            this.item = item;
            this.channel = channel;
            this.size = size;
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

        boolean done() {
            return position >= size || failure != null;
        }

        /**
         * Ends the file: writes its FILE_END into {@code b}, OK only when all of the size the
         * walk saw was read and the file did not change since the walk (its size, mtime and
         * ctime are the walk's).
         */
        void end(ByteBuffer b, int id) {
            String why = failure != null ? failure : changed();
            close();
            TreeFormat.putFileEnd(b, id, why == null ? null : TreeFormat.text(why), position,
                    (int) crc.getValue());
            TreeEntry e = item.entry;
            if (why == null) {
                okBytes += position;
                options.listener().onDone(e, position);
            } else {
                failures++;
                options.listener().onFailure(new TreeFailure(e.path(), why));
            }
        }

        private String changed() {
            if (position < size) {
                return "shrank while it was read (" + position + " of " + size + " bytes)";
            }
            Map<String, Object> a;
            try {
                a = Files.readAttributes(item.file, AFTER, TreeWalker.how(item));
            } catch (IOException e) {
                return "vanished while it was read";
            }
            long now = (Long) a.get("size");
            if (now != size) {
                return "changed size while it was read (" + size + " -> " + now + " bytes)";
            }
            if (((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS) != item.entry.mtimeNanos()
                    || ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS) != item.ctimeNanos) {
                return "changed while it was read";
            }
            return null;
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                log.debug("closing {}: {}", item.file, e.toString());
            }
        }
    }

    /** A small file read by the packer into the chunk it is filling. */
    private final class Packing {
        final int id;
        final Opened opened;

        Packing(int id, Opened opened) {
            this.id = id;
            this.opened = opened;
        }

        /** Packs what fits of the file into {@code b}; true when its FILE_END is written too. */
        boolean pack(ByteBuffer b) {
            while (!opened.done()) {
                int room = b.remaining() - TreeFormat.DATA_HEADER - TreeFormat.FILE_END_MAX;
                if (room <= 0) {
                    return false;
                }
                int header = b.position();
                b.position(header + TreeFormat.DATA_HEADER);
                int n = opened.read(b, (int) Math.min(room, opened.size - opened.position));
                if (n == 0) {
                    b.position(header);
                    break;   // early end of file or read error
                }
                int end = b.position();
                b.position(header);
                TreeFormat.putDataHeader(b, id, n);
                b.position(end);
            }
            if (b.remaining() < TreeFormat.FILE_END_MAX) {
                return false;
            }
            opened.end(b, id);
            return true;
        }
    }

    /** A large file read on its own task, one chunk per DATA record. */
    private final class Lane implements Runnable {
        final int id;
        final Opened opened;

        Lane(int id, Opened opened) {
            this.id = id;
            this.opened = opened;
        }

        @Override
        public void run() {
            try {
                for (;;) {
                    Permit p = takePermit(this);
                    if (p != Permit.GRANTED) {
                        if (p == Permit.STOPPED) {
                            opened.close();
                        }
                        return;
                    }
                    Chunk c = lease();
                    boolean last;
                    try {
                        last = fill(c.buffer());
                    } catch (Throwable t) {
                        c.release();
                        throw t;
                    }
                    emit(c);
                    if (last) {
                        laneDone();
                        return;
                    }
                    if (yieldTo(this)) {
                        return;
                    }
                }
            } catch (Throwable t) {
                opened.close();
                fail(t);
            }
        }

        /** Reads the next piece into {@code b}; true when the file's FILE_END is in it. */
        private boolean fill(ByteBuffer b) {
            long hole = 0;
            int n = 0;
            while (!opened.done() && !stopped) {
                b.position(LANE_HEAD);
                n = opened.read(b, (int) Math.min(lanePayload, opened.size - opened.position));
                if (n == 0 || !(options.sparse() && zeros(b, LANE_HEAD, n))) {
                    break;
                }
                hole += n;   // all zeros: travels as a hole; read on into the same buffer
                n = 0;
            }
            int start;
            int end;
            if (n > 0) {
                b.position(TreeFormat.HOLE_RECORD);
                TreeFormat.putDataHeader(b, id, n);
                end = LANE_HEAD + n;
                start = TreeFormat.HOLE_RECORD;
                if (hole > 0) {
                    b.position(0);
                    TreeFormat.putHole(b, id, hole);
                    start = 0;
                }
            } else {
                b.position(0);
                if (hole > 0) {
                    TreeFormat.putHole(b, id, hole);
                }
                start = 0;
                end = b.position();
            }
            boolean last = opened.done() || n == 0 && !stopped;
            b.limit(b.capacity()).position(end);
            if (last) {
                opened.end(b, id);
                end = b.position();
            }
            b.position(start).limit(end);
            return last;
        }

        private void laneDone() {
            boolean wake;
            synchronized (lock) {
                activeLanes--;
                wake = packerParked;
                packerParked = false;
            }
            if (wake) {
                schedule(packer);
            }
        }
    }

    /** Whether {@code n} bytes of {@code b} from {@code from} are all zero. */
    private static boolean zeros(ByteBuffer b, int from, int n) {
        if (n < 8 || b.getLong(from) != 0) {
            return false;   // the usual case: data, seen at once
        }
        for (int off = 0; off < n; off += ZEROS.capacity()) {
            int len = Math.min(ZEROS.capacity(), n - off);
            if (b.slice(from + off, len).mismatch(ZEROS.slice(0, len)) != -1) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code root}, a link there followed, exists and is neither a directory nor a regular file. */
    private static boolean isSpecial(Path root) {
        return Files.exists(root) && !Files.isDirectory(root) && !Files.isRegularFile(root);
    }
}
