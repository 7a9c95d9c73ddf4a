package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.tree.TreeWalker.Item;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The walk that packs: one task of a {@link TreeReader} that walks the tree and fills chunks with
 * records in walk order (the header, entries, notices, and the contents of small files packed
 * one after another, then END). A large file's ENTRY goes in the walk's chunk and its contents to
 * a {@link FileLane}, started only after that chunk has been emitted; END is written only after
 * every lane has ended, so the records' order rules hold whatever the threads do.
 *
 * <p>Its state is touched by this task only, which never runs twice at once: it is scheduled
 * again only by the permits it waits for ({@link ReadPermits}).
 */
final class TreePacker implements Runnable {

    private static final Logger log = Loggers.getLogger(TreePacker.class);

    private enum Stop { FULL, WAIT, ENDED }

    private final Path root;
    private final List<Path> container;
    private final TreeSourceOptions options;
    private final boolean listing;
    private final boolean checksums;
    private final ReadOutlet outlet;
    private final ReadPermits permits;
    private final int lanePayload;
    /** The stream's format version: 2 when the baseline holds parts of files to resume, else 1 (any reader's). */
    private final int version;

    private TreeWalker walker;
    private boolean headerWritten;
    private Pending held;
    private Packing current;
    private final List<FileLane> toStart = new ArrayList<>();
    /** Files with several names: their file key's text, and the path they were sent under first. */
    private final PackedSet linkTargets = new PackedSet();
    private int nextId;

    /**
     * @param root        the tree's root, or for a container (several roots) its description
     * @param container   the roots of a container, or null for a tree of one root
     * @param listing     entries only, no contents
     * @param checksums   with {@code listing}: each file's SHA-256
     * @param lanePayload data bytes a lane puts in one chunk
     */
    TreePacker(Path root, List<Path> container, TreeSourceOptions options, boolean listing, boolean checksums,
               ReadOutlet outlet, ReadPermits permits, int lanePayload) {
        this.root = root;
        this.container = container;
        this.options = options;
        this.listing = listing;
        this.checksums = checksums;
        this.outlet = outlet;
        this.permits = permits;
        this.lanePayload = lanePayload;
        this.version = !listing && options.baseline() != null && options.baseline().hasParts()
                ? TreeFormat.VERSION_RESUME : TreeFormat.VERSION;
    }

    @Override
    public void run() {
        try {
            for (;;) {
                ReadPermits.Grant p = permits.take(this);
                if (p != ReadPermits.Grant.GRANTED) {
                    if (p == ReadPermits.Grant.STOPPED) {
                        close();
                    }
                    return;
                }
                Chunk c = outlet.lease();
                Stop s;
                try {
                    s = fill(c.buffer());
                } catch (Throwable t) {
                    c.release();
                    throw t;
                }
                c.buffer().flip();
                outlet.emit(c);
                startLanes();
                if (s == Stop.ENDED) {
                    close();
                    permits.end();
                    outlet.complete();
                    return;
                }
                // Waiting for a lane slot (a large file held) or for every lane to end (END).
                if (s == Stop.WAIT && permits.parkUnless(this, held != null ? options.parallelFiles() : 1)) {
                    return;
                }
            }
        } catch (Throwable t) {
            close();
            outlet.fail(t);
        }
    }

    private void startLanes() {
        for (FileLane lane : toStart) {
            outlet.schedule(lane);
        }
        toStart.clear();
    }

    private Stop fill(ByteBuffer b) throws IOException {
        if (!headerWritten) {
            TreeFormat.putHeader(b, listing ? TreeFormat.FLAG_LISTING : 0, version);
            headerWritten = true;
            if (container != null) {
                walker = new TreeWalker(container, options.followSymlinks());
            } else if (listing && !Files.exists(root) && StagedTree.rootPart(root) != null) {
                // A missing file whose part a cut copy kept: listed as a container of that part
                // alone, which the source finds (TreeListing.rootPart) to resume the file after it.
                walker = new TreeWalker(List.of(StagedTree.rootPart(root)), false);
            } else if (listing && (!Files.exists(root) || isSpecial(root))) {
                // The listing of a missing destination is empty; so is that of a device or FIFO,
                // which the copy writes through (there is nothing in it to compare or keep).
                walker = null;
            } else {
                walker = new TreeWalker(root, options.followSymlinks());
            }
        }
        for (;;) {
            if (permits.stopped()) {
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
                    if (permits.activeLanes() > 0) {
                        return Stop.WAIT;
                    }
                    if (b.remaining() < TreeFormat.END_RECORD) {
                        return Stop.FULL;
                    }
                    TreeFormat.putEnd(b, nextId, outlet.okBytes(), outlet.failures());
                    return Stop.ENDED;
                }
                held = prepare(item);
                walker.advance();
            }
            if (held.lane && permits.activeLanes() >= options.parallelFiles()) {
                return Stop.WAIT;
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
                        0, new String(first, StandardCharsets.UTF_8), null), 0, false, null);
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
        SourceFile opened = new SourceFile(item, ch, size);
        Pending p = new Pending(item, e, flags | TreeFormat.F_DATA, lane, opened, resumable(item, opened));
        return p;
    }

    /**
     * A file the destination's listing holds a part of ({@code .rdflux-NAME.part} beside it,
     * kept by a cut copy, {@link StagedTree}): resumed after that part, whose SHA-256 it sends for
     * the receiver to check. Null when the stream does not resume files, the file is small (its
     * receiver gathers it in memory) or the part is empty or longer than the file. The root
     * file's part is the one file of a listing made for it ({@link StagedTree#rootPart}).
     */
    private TreeFormat.Resume resumable(Item item, SourceFile opened) {
        TreeEntry e = item.entry;
        if (version < TreeFormat.VERSION_RESUME || opened.size <= TreeWriter.QUEUED_MAX) {
            return null;
        }
        String parent = TreeFormat.parent(e.path());
        // The tree's root file: its part is named for the destination's name, not known here.
        String part = e.path().isEmpty() ? options.baseline().rootPart()
                : (parent.isEmpty() ? "" : parent + "/") + StagedTree.partName(e.name());
        TreeEntry there = part == null ? null : options.baseline().get(part).orElse(null);
        if (there == null || there.kind() != TreeEntry.Kind.FILE || there.size() <= 0 || there.size() > opened.size) {
            return null;
        }
        byte[] sha = opened.prefix(there.size());
        if (sha == null) {
            return null;
        }
        // The kept prefix is done without crossing the wire, as a hole is: a progress display
        // that counts the file's length reaches 100 %.
        options.listener().onHole(there.size());
        return new TreeFormat.Resume(there.size(), sha);
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
            return Arrays.equals(there.checksum(), Checksums.sha256(item.file, TreeWalker.how(item)));
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

    /** Closes the walk and every file this task holds (on END, error and stop). */
    private void close() {
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
        for (FileLane lane : toStart) {
            lane.opened.close();
        }
        toStart.clear();
    }

    /** Whether {@code root}, a link there followed, exists and is neither a directory nor a regular file. */
    private static boolean isSpecial(Path root) {
        return Files.exists(root) && !Files.isDirectory(root) && !Files.isRegularFile(root);
    }

    /** One item, ready to be written: its record's size is known. */
    private final class Pending {
        final Item item;
        final TreeEntry entry;
        final int flags;
        final boolean lane;
        final SourceFile opened;
        final byte[] path;
        final byte[] link;
        final int size;
        String failure;

        /** Where its contents start, after a part the receiver kept; null: from the start. */
        final TreeFormat.Resume resume;

        Pending(Item item, TreeEntry entry, int flags, boolean lane, SourceFile opened) {
            this(item, entry, flags, lane, opened, null);
        }

        Pending(Item item, TreeEntry entry, int flags, boolean lane, SourceFile opened, TreeFormat.Resume resume) {
            this.item = item;
            this.resume = resume;
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
                int s = TreeFormat.entrySize(path, link, entry.checksum()) + (resume != null ? TreeFormat.RESUME_FIELDS : 0);
                // A file read here needs room for its FILE_END in the same chunk at least.
                this.size = (flags & TreeFormat.F_DATA) != 0 && !lane ? s + TreeFormat.FILE_END_MAX : s;
            }
        }

        void write(ByteBuffer b) {
            TreeListener listener = options.listener();
            if (entry == null) {
                TreeFormat.putNotice(b, item.error, path, link);
                if (item.error) {
                    outlet.failed(item.path, item.message);
                } else {
                    listener.onWarning(item.path, item.message);
                }
                return;
            }
            int id = nextId++;
            TreeFormat.putEntry(b, id, entry, flags, path, link, resume);
            if ((flags & TreeFormat.F_DATA) == 0) {
                listener.onDone(entry, 0);
            } else if (failure != null) {
                TreeFormat.putFileEnd(b, id, TreeFormat.text(failure), 0, 0);
                outlet.failed(entry.path(), failure);
            } else if (lane) {
                permits.laneStarted();
                toStart.add(new FileLane(outlet, permits, id, opened, lanePayload, options.sparse(), listener));
            } else {
                current = new Packing(id, opened);
            }
        }
    }

    /** A small file read by the packer into the chunk it is filling. */
    private final class Packing {
        final int id;
        final SourceFile opened;

        Packing(int id, SourceFile opened) {
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
                int n = opened.read(b, (int) Math.min(room, opened.left()));
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
            String why = opened.end(b, id);
            outlet.fileEnded(opened.item.entry, opened.position(), why);
            return true;
        }
    }
}
