package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.IoErrors;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Walks a tree depth first, a directory before its entries and each directory's entries sorted
 * by name, one {@code lstat} per entry. Blocking; used by one thread at a time. Holds the sorted
 * names of one directory per level.
 *
 * <p>Problems that concern one entry (a directory that cannot be listed, a name that is not
 * valid in the file-name encoding, a path longer than a tree stream carries, a special file, an
 * entry that vanished) become notices in the walk's order, and the walk goes on.
 */
final class TreeWalker implements Closeable {

    private static final String ATTRIBUTES = "unix:mode,nlink,size,lastModifiedTime,ctime,fileKey";
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final LinkOption[] FOLLOW = {};
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;

    /** One entry found by the walk, or a notice. */
    static final class Item {
        final TreeEntry entry;      // null for a notice
        final Path file;
        final long ctimeNanos;
        final Object fileKey;
        final int nlink;
        final boolean follow;       // whether opening and stat'ing the file follows a link
        final boolean error;        // notices
        final boolean container;    // the root of several named roots
        final String path;
        final String message;

        private Item(TreeEntry entry, Path file, long ctimeNanos, Object fileKey, int nlink, boolean follow) {
            this(entry, file, ctimeNanos, fileKey, nlink, follow, false);
        }

        private Item(TreeEntry entry, Path file, long ctimeNanos, Object fileKey, int nlink, boolean follow,
                     boolean container) {
            this.entry = entry;
            this.file = file;
            this.ctimeNanos = ctimeNanos;
            this.fileKey = fileKey;
            this.nlink = nlink;
            this.follow = follow;
            this.error = false;
            this.container = container;
            this.path = entry.path();
            this.message = null;
        }

        private Item(boolean error, String path, String message) {
            this.entry = null;
            this.file = null;
            this.ctimeNanos = 0;
            this.fileKey = null;
            this.nlink = 0;
            this.follow = false;
            this.error = error;
            this.container = false;
            this.path = path;
            this.message = message;
        }

        boolean isNotice() {
            return entry == null;
        }
    }

    private static final class Frame {
        final String prefix;
        final Object key;
        final Path[] children;
        final boolean roots;        // a container's roots: each is named by its own file name, followed if a link
        int next;

        Frame(String prefix, Object key, Path[] children, boolean roots) {
            this.prefix = prefix;
            this.key = key;
            this.children = children;
            this.roots = roots;
        }
    }

    private final Path root;
    private final List<Path> roots;
    private final boolean follow;
    private final Deque<Frame> stack = new ArrayDeque<>();
    private final ArrayDeque<Item> pending = new ArrayDeque<>();
    private boolean started;

    TreeWalker(Path root, boolean followSymlinks) {
        this.root = root;
        this.roots = null;
        this.follow = followSymlinks;
    }

    /**
     * A walk of several roots under a container root: an empty directory entry marked as a
     * container, then each root under its own name (in name order), as if it were a child.
     */
    TreeWalker(List<Path> roots, boolean followSymlinks) {
        this.root = null;
        this.roots = List.copyOf(roots);
        this.follow = followSymlinks;
    }

    /** A notice about {@code path}. */
    static Item notice(boolean error, String path, String message) {
        return new Item(error, path, message);
    }

    /** How to stat or open an item's file: following a link or not. */
    static LinkOption[] how(Item item) {
        return item.follow ? FOLLOW : NOFOLLOW;
    }

    /** The next item without consuming it, or null at the end of the walk. */
    Item peek() throws IOException {
        while (pending.isEmpty()) {
            if (!started) {
                started = true;
                if (roots == null) {
                    // The root is what the caller named: a link there is followed.
                    visit(root, "", FOLLOW);
                } else {
                    pending.add(new Item(new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null), null,
                            0, null, 1, false, true));
                    Path[] sorted = roots.toArray(new Path[0]);
                    java.util.Arrays.sort(sorted, java.util.Comparator.comparing(Path::getFileName));
                    stack.push(new Frame("", null, sorted, true));
                }
                continue;
            }
            Frame top = stack.peek();
            if (top == null) {
                return null;
            }
            if (top.next == top.children.length) {
                stack.pop();
                continue;
            }
            Path child = top.children[top.next];
            top.children[top.next++] = null;
            String name = child.getFileName().toString();
            String path = top.prefix.isEmpty() ? name : top.prefix + "/" + name;
            if (!child.resolveSibling(name).equals(child)) {
                pending.add(new Item(true, path, "its name is not valid in the file-name encoding ("
                        + System.getProperty("sun.jnu.encoding") + "); not copied"));
                continue;
            }
            int tooLong = tooLong(path);
            if (tooLong > 0) {
                // Named short enough for a record and a line: the path's first component and its own name.
                int slash = path.indexOf('/');
                String shown = slash < 0 || slash == path.lastIndexOf('/') ? path
                        : path.substring(0, slash) + "/.../" + name;
                pending.add(new Item(true, shown, "not copied, nor anything below it: its path (shortened here) is "
                        + tooLong + " bytes, longer than the " + TreeFormat.MAX_PATH + " bytes a tree stream carries"));
                continue;
            }
            // A container's roots are what the caller named, as a single root is: links there are followed.
            visit(child, path, top.roots ? FOLLOW : NOFOLLOW);
        }
        return pending.peek();
    }

    /**
     * The length in bytes of {@code path} when it is longer than a tree stream carries
     * ({@link TreeFormat#MAX_PATH}), else 0. A receiver refuses a whole stream for such a path,
     * so the entry fails here, with what is below it, and the rest goes on.
     */
    private static int tooLong(String path) {
        if (path.length() * 3 <= TreeFormat.MAX_PATH) {
            return 0;   // a char is at most 3 UTF-8 bytes (a surrogate pair 4 for 2 chars)
        }
        int bytes = TreeFormat.utf8(path).length;
        return bytes > TreeFormat.MAX_PATH ? bytes : 0;
    }

    /** Consumes the item {@link #peek()} returned. */
    void advance() {
        pending.poll();
    }

    private void visit(Path file, String path, LinkOption[] how) throws IOException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(file, ATTRIBUTES, how);
        } catch (NoSuchFileException e) {
            if (path.isEmpty()) {
                throw e;
            }
            pending.add(new Item(false, path, "vanished before it was read"));
            return;
        } catch (IOException e) {
            if (path.isEmpty()) {
                throw e;
            }
            pending.add(new Item(true, path, "cannot read its attributes: " + IoErrors.phrase(e)));
            return;
        }
        int mode = (Integer) a.get("mode");
        boolean followed = how == FOLLOW;
        if ((mode & S_IFMT) == S_IFLNK && follow) {
            followed = true;
            try {
                a = Files.readAttributes(file, ATTRIBUTES, FOLLOW);
                mode = (Integer) a.get("mode");
            } catch (IOException e) {
                pending.add(new Item(true, path, "a symbolic link that cannot be followed: "
                        + IoErrors.phrase(e)));
                return;
            }
        }
        long mtime = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
        long ctime = ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS);
        Object key = a.get("fileKey");
        int nlink = (Integer) a.get("nlink");
        switch (mode & S_IFMT) {
            case S_IFREG -> pending.add(new Item(new TreeEntry(path, TreeEntry.Kind.FILE, mode & 07777, mtime,
                    (Long) a.get("size"), null, null), file, ctime, key, nlink, followed));
            case S_IFDIR -> directory(file, path, mode, mtime, ctime, key, followed);
            case S_IFLNK -> {
                Path target = Files.readSymbolicLink(file);
                String text = target.toString();
                if (!file.getFileSystem().getPath(text).equals(target)) {
                    pending.add(new Item(true, path, "its link target is not valid in the file-name encoding; not copied"));
                } else {
                    pending.add(new Item(new TreeEntry(path, TreeEntry.Kind.SYMLINK, mode & 07777, mtime, 0, text, null),
                            file, ctime, key, nlink, false));
                }
            }
            default -> {
                if (path.isEmpty()) {
                    throw new IOException("not a directory, file or symbolic link");
                }
                pending.add(new Item(false, path, "skipped: " + special(mode) + " (special files are not copied)"));
            }
        }
    }

    private void directory(Path dir, String path, int mode, long mtime, long ctime, Object key, boolean followed)
            throws IOException {
        for (Frame f : stack) {
            if (key != null && key.equals(f.key)) {
                pending.add(new Item(true, path, "a symbolic link loop (it leads back to '" + f.prefix + "'); not followed"));
                return;
            }
        }
        pending.add(new Item(new TreeEntry(path, TreeEntry.Kind.DIRECTORY, mode & 07777, mtime, 0, null, null),
                dir, ctime, key, 1, followed));
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                children.add(p);
            }
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            if (path.isEmpty()) {
                throw e instanceof IOException io ? io : ((java.nio.file.DirectoryIteratorException) e).getCause();
            }
            Throwable cause = e instanceof java.nio.file.DirectoryIteratorException d ? d.getCause() : e;
            pending.add(new Item(true, path, "cannot list this directory: "
                    + IoErrors.phrase(cause) + "; its contents were not copied"));
            return;
        }
        Path[] sorted = children.toArray(new Path[0]);
        // Children of one directory differ only in their last component: this sorts by name bytes.
        java.util.Arrays.sort(sorted);
        stack.push(new Frame(path, key, sorted, false));
    }

    private static String special(int mode) {
        return switch (mode & S_IFMT) {
            case 0010000 -> "a FIFO";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0140000 -> "a socket";
            default -> "a special file";
        };
    }

    @Override
    public void close() {
        stack.clear();
        pending.clear();
    }
}
