package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.TreeFormat.malformed;

import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.Plural;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rules a tree stream must keep, checked record by record without touching a file: what an
 * entry may say (path syntax, kind, flags), the sequence (ids in order, the root first, nothing
 * after END, END's counts), the root (a tree below a directory only), declared directories
 * (every entry's parent listed before it and made or found a real directory, no entry taking a
 * directory's path), hard links (only to files this stream wrote) and contents (only for an open
 * file, never past its declared size, at most {@code maxOpenFiles} open). Anything else is a
 * {@link TreeFormat#malformed CODEC} refusal (bad data) naming the record.
 *
 * <p>Pure, so that it can be tested on any sequence: the sink tells it what became of each
 * directory ({@link #directoryMade}, {@link #directoryFailed}) and of each hard-link target
 * ({@link #linkTarget}). It also holds what the stream makes the sink remember (directories,
 * link targets and, with deletion, every entry's name), bounded in bytes ({@code maxHeld}).
 * A listing ({@link #listing()}) keeps the sequence rules only and carries no contents.
 */
final class TreeRules {

    /** What a directory costs besides its path: set entries, its entry in the order, its id. */
    static final int DIRECTORY_BYTES = 320;

    /** What becomes of an entry the rules accept. */
    enum Verdict {
        /** Written at the destination. */
        WRITE,
        /** Not written, its directory could not be made: it fails, its contents are read and dropped. */
        SKIP
    }

    /** A file whose contents are arriving: what its entry declared, and what came. */
    private static final class Open {
        final String path;
        final long size;
        long received;

        Open(String path, long size) {
            this.path = path;
            this.size = size;
        }
    }

    private final boolean listing;
    private final long maxHeld;
    private final int maxOpenFiles;
    private final boolean recordNames;

    private long nextId;
    private boolean ended;
    private boolean rootIsDirectory;
    private boolean container;
    private long senderOkBytes;
    private long senderFailures;
    private final Set<String> directories = new HashSet<>();
    private final Set<String> failedDirectories = new HashSet<>();
    private long directoryBytes;
    private final Map<Integer, Open> open = new HashMap<>();
    /** Files later entries may hard-link to: path, and whether it arrived (state 1). */
    private final PackedSet linkTargets = new PackedSet();
    /** With deletion: each declared directory's number (the order it was declared in) ... */
    private final Map<String, Integer> directoryIds = new HashMap<>();
    /** ... and the entry names in it, each as that number (4 bytes) and the name's bytes. */
    private final PackedSet names = new PackedSet();

    private TreeRules(boolean listing, long maxHeld, int maxOpenFiles, boolean recordNames) {
        this.listing = listing;
        this.maxHeld = maxHeld;
        this.maxOpenFiles = maxOpenFiles;
        this.recordNames = recordNames;
    }

    /**
     * The rules of a tree with contents.
     *
     * @param maxHeld      the most bytes the stream may make this side hold (see {@link #entry})
     * @param maxOpenFiles the most files open at once
     * @param recordNames  whether every entry's name is remembered, for deletion ({@link #listed})
     */
    static TreeRules tree(long maxHeld, int maxOpenFiles, boolean recordNames) {
        return new TreeRules(false, maxHeld, maxOpenFiles, recordNames);
    }

    /** The rules of a listing: entries in sequence, no contents, END's count. */
    static TreeRules listing() {
        return new TreeRules(true, Long.MAX_VALUE, 0, false);
    }

    // ---- what an entry may say -------------------------------------------------------------

    /**
     * The entry an ENTRY record describes, once its fields pass the format's rules: a known kind,
     * known flags and mode bits, a path that stays inside the tree (relative, no {@code ..},
     * {@code .} or empty components, no NUL), a link target exactly for links (a hard link's a
     * path by the same rules), the container flag on a root directory only, contents on files only.
     */
    static TreeEntry entry(int id, int kindCode, int flags, int mode, long mtime, long size, String path,
                           String link, byte[] sum) throws RdmaFluxException {
        TreeEntry.Kind kind = TreeEntry.Kind.of(kindCode);
        String where = "entry " + id + " '" + path + "'";
        if (kind == null) {
            throw malformed(where + " is of kind " + kindCode + ", which this version does not create"
                    + " (special files are not carried)");
        }
        if ((flags & ~TreeFormat.ENTRY_FLAGS) != 0 || (mode & ~07777) != 0 || size < 0) {
            throw malformed(where + " has unknown flags, mode bits or a negative size");
        }
        if (!path.isEmpty()) {
            String problem = TreeFormat.pathProblem(path, TreeFormat.utf8(path).length);
            if (problem != null) {
                throw malformed(where + ": " + problem);
            }
        }
        boolean linked = kind == TreeEntry.Kind.SYMLINK || kind == TreeEntry.Kind.HARD_LINK;
        if (linked == link.isEmpty() || link.indexOf('\0') >= 0) {
            throw malformed(where + (linked ? " has no link target or a NUL in it" : " has a link target"));
        }
        if ((flags & TreeFormat.F_CONTAINER) != 0 && (!path.isEmpty() || kind != TreeEntry.Kind.DIRECTORY)) {
            throw malformed(where + " is marked as a container, which only a root directory may be");
        }
        if (kind != TreeEntry.Kind.FILE && (size != 0 || (flags & TreeFormat.F_DATA) != 0)) {
            throw malformed(where + " is a " + kind.name().toLowerCase(Locale.ROOT) + " with contents");
        }
        if (kind == TreeEntry.Kind.HARD_LINK) {
            String problem = TreeFormat.pathProblem(link, TreeFormat.utf8(link).length);
            if (problem != null) {
                throw malformed(where + ": its link target: " + problem);
            }
        }
        return new TreeEntry(path, kind, mode, mtime, size, linked ? link : null, sum);
    }

    // ---- the sequence ----------------------------------------------------------------------

    /** The stream's header flags: a listing where a listing is expected, a tree where a tree is. */
    void header(int flags) throws RdmaFluxException {
        boolean isListing = (flags & TreeFormat.FLAG_LISTING) != 0;
        if (isListing && !listing) {
            throw malformed("a listing where a tree with contents was expected");
        }
        if (!isListing && listing) {
            throw malformed("a tree with contents where a listing was expected");
        }
    }

    /**
     * Checks the next entry against the sequence, the root and the declared directories, and
     * counts what it makes this side hold; the sink then writes it ({@link Verdict#WRITE}) or
     * fails it ({@link Verdict#SKIP}, its directory failed: it fails with it, as a directory too).
     */
    Verdict entry(int id, TreeEntry e, int flags) throws RdmaFluxException {
        if (listing) {
            if ((id & 0xffffffffL) != nextId++) {
                throw malformed("entry " + id + " out of sequence");
            }
            if ((flags & TreeFormat.F_DATA) != 0) {
                throw malformed("a listing entry with contents");
            }
            return Verdict.WRITE;
        }
        String where = "entry " + (id & 0xffffffffL) + " '" + e.path() + "'";
        if (ended) {
            throw malformed(where + " after the END record");
        }
        if ((id & 0xffffffffL) != nextId) {
            throw malformed(where + " out of sequence (expected entry " + nextId + ")");
        }
        nextId++;
        checkHeld(where);   // what the entries before this one left held: each adds at most a few KiB
        String path = e.path();
        if (nextId == 1) {
            if (!path.isEmpty()) {
                throw malformed("the first entry must be the root (an empty path), not '" + path + "'");
            }
            rootIsDirectory = e.kind() == TreeEntry.Kind.DIRECTORY;
            container = (flags & TreeFormat.F_CONTAINER) != 0;
            if (e.kind() == TreeEntry.Kind.HARD_LINK) {
                throw malformed("the root is a hard link");
            }
            return Verdict.WRITE;
        }
        if (path.isEmpty()) {
            throw malformed(where + ": only the first entry may be the root");
        }
        if (!rootIsDirectory) {
            throw malformed(where + ": the root is not a directory, so it is the only entry");
        }
        String parent = TreeFormat.parent(path);
        if (directories.contains(path) || failedDirectories.contains(path)) {
            throw malformed(where + " takes the path of a directory listed earlier");
        }
        if (!directories.contains(parent)) {
            if (failedDirectories.contains(parent)) {
                directoryFailed(path);   // so that its own entries fail with it
                return Verdict.SKIP;
            }
            throw malformed(where + ": its directory '" + parent + "' was not listed before it"
                    + " (an entry may not be reached through a symbolic link or a missing directory)");
        }
        if (recordNames) {
            names.put(nameKey(directoryIds.get(parent), TreeFormat.utf8(e.name())), 1);
        }
        return Verdict.WRITE;
    }

    /** Whether the root is a container: it only holds the entries (its mode and time are left alone). */
    boolean container() {
        return container;
    }

    /** A declared directory is there, a real one (made, or found with no link followed): entries may follow in it. */
    void directoryMade(String path) {
        directories.add(path);
        directoryBytes += DIRECTORY_BYTES + 2L * path.length();
        if (recordNames) {
            directoryIds.put(path, directoryIds.size());
        }
    }

    /** A declared directory could not be made: its entries fail with it, and none may take its path. */
    void directoryFailed(String path) {
        failedDirectories.add(path);
        directoryBytes += DIRECTORY_BYTES + 2L * path.length();
    }

    /** With deletion: whether the stream listed {@code name} in the declared directory {@code dir}. */
    boolean listed(String dir, String name) {
        return names.contains(nameKey(directoryIds.get(dir), TreeFormat.utf8(name)));
    }

    // ---- hard links --------------------------------------------------------------------------

    /** Records whether a file later hard links may name (flag {@code F_LINK_TARGET}) arrived. */
    void linkTarget(TreeEntry e, int flags, boolean arrived) {
        if ((flags & TreeFormat.F_LINK_TARGET) != 0) {
            linkTargets.put(TreeFormat.utf8(e.path()), arrived ? 1 : 0);
        }
    }

    /**
     * Whether the file hard link {@code e} names arrived; refused when it names no file this
     * stream wrote. (Ask once every file before it has been reported.)
     */
    boolean hardLinkTargetArrived(TreeEntry e) throws RdmaFluxException {
        int state = linkTargets.state(TreeFormat.utf8(e.link()));
        if (state < 0) {
            throw malformed("hard link '" + e.path() + "' names '" + e.link()
                    + "', which is not a file this stream wrote");
        }
        return state == 1;
    }

    // ---- contents ----------------------------------------------------------------------------

    /** The contents of entry {@code id} follow: at most {@code maxOpenFiles} files may be open at once. */
    void opened(int id, TreeEntry e) throws RdmaFluxException {
        if (open.size() >= maxOpenFiles) {
            throw malformed("more than " + Plural.count(maxOpenFiles, "file") + " open at once (entry '" + e.path() + "')");
        }
        open.put(id, new Open(e.path(), e.size()));
    }

    /** File {@code id}'s contents start at {@code offset} (at most its size, the parser checked): what is before is the receiver's. */
    void resumed(int id, long offset) throws RdmaFluxException {
        Open f = file(id, "ENTRY");
        f.received = offset;
    }

    /**
     * A DATA or HOLE record ({@code record}) of {@code n} bytes for file {@code id}: refused
     * (thrown) when that file is not open; past its declared size the refusal is returned, for
     * the caller to remove what it wrote before throwing it; null when it fits.
     */
    RdmaFluxException contents(int id, String record, long n) throws RdmaFluxException {
        Open f = file(id, record);
        // received <= size always holds, so this cannot overflow as received + n could.
        if (n > f.size - f.received) {
            return malformed("file '" + f.path + "': more data than the " + f.size + " bytes its header says");
        }
        f.received += n;
        return null;
    }

    /**
     * FILE_END for file {@code id}, which closes it: refused (thrown) when it is not open; when
     * the sums of the lengths sent pass the largest long, or its lengths disagree (header,
     * arrived, end), the refusal is returned, for the caller to remove the file before throwing it.
     *
     * @param failure the sender's reason, null when it read the file whole
     */
    RdmaFluxException fileEnd(int id, String failure, long length) throws RdmaFluxException {
        Open f = file(id, "FILE_END");
        open.remove(id);
        if (failure != null) {
            senderFailures++;
            return null;
        }
        try {
            senderOkBytes = add(senderOkBytes, length, "the bytes of the files sent");
        } catch (RdmaFluxException sums) {
            return sums;   // not thrown: the caller removes the file being written first
        }
        if (length != f.received || length != f.size) {
            return malformed("file '" + f.path + "': its header says " + f.size + " bytes, "
                    + f.received + " arrived, its end says " + length);
        }
        return null;
    }

    private Open file(int id, String record) throws RdmaFluxException {
        if (listing) {
            throw malformed("contents in a listing");
        }
        Open f = open.get(id);
        if (f == null) {
            throw malformed(record + " for file " + (id & 0xffffffffL) + ", which is not open");
        }
        return f;
    }

    /** A NOTICE: an error counts among the sender's failures that END states. */
    void notice(boolean error) {
        if (error) {
            senderFailures++;
        }
    }

    /** END: no file open, its counts the stream's, and there was a root. */
    void end(long entries, long okBytes, long senderFailureCount) throws RdmaFluxException {
        if (listing) {
            if (entries != nextId) {
                throw malformed("END counts " + Plural.count(entries, "entry", "entries") + ", the listing had " + nextId);
            }
            return;
        }
        if (!open.isEmpty()) {
            throw malformed("END while " + Plural.count(open.size(), "file") + (open.size() == 1 ? " is" : " are")
                    + " still open (entry '"
                    + open.values().iterator().next().path + "')");
        }
        if (entries != nextId || okBytes != senderOkBytes || senderFailureCount != senderFailures) {
            throw malformed("END counts " + Plural.count(entries, "entry", "entries") + ", "
                    + Plural.count(okBytes, "byte") + " and " + Plural.count(senderFailureCount, "failure")
                    + "; the stream had " + nextId + ", " + senderOkBytes + " and " + senderFailures);
        }
        if (nextId == 0) {
            throw malformed("the stream has no root entry");
        }
        ended = true;
    }

    /** The number of entries so far. */
    long entries() {
        return nextId;
    }

    // ---- bounds ------------------------------------------------------------------------------

    /**
     * Refuses the stream once what it made this side hold passes {@code maxHeld}: the paths of
     * its directories, the files hard links may name, and with deletion every entry's name.
     * Counted in bytes, not entries: long paths cost what they weigh.
     */
    private void checkHeld(String where) throws RdmaFluxException {
        long held = directoryBytes + linkTargets.bytes() + names.bytes();
        if (held > maxHeld) {
            // The sender's path last: a long one is what the message's length limit cuts.
            throw malformed("writing this tree needs more than " + (maxHeld >> 20) + " MiB of memory here"
                    + " (the tree sink's limit, a quarter of the Java heap) for its directories, hard-link targets"
                    + (recordNames ? " and names" : "") + ": raise the heap with RDFLUX_JAVA_OPTS=-Xmx<size>"
                    + " (e.g. -Xmx1g), or copy a smaller tree; at " + where);
        }
    }

    /** {@code a + b}, sums of sizes a sender declared: past the largest long the stream is refused, never wrapped. */
    static long add(long a, long b, String what) throws RdmaFluxException {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException x) {
            throw malformed(what + " add up to more than " + Long.MAX_VALUE);
        }
    }

    /** The key of a name in the directory numbered {@code id}. */
    private static byte[] nameKey(int id, byte[] name) {
        byte[] key = new byte[4 + name.length];
        key[0] = (byte) (id >>> 24);
        key[1] = (byte) (id >>> 16);
        key[2] = (byte) (id >>> 8);
        key[3] = (byte) id;
        System.arraycopy(name, 0, key, 4, name.length);
        return key;
    }
}
