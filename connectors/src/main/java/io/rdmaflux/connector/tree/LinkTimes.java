package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Sets a symbolic link's own times to the nanosecond, where JDK 17 sets them with
 * {@code lutimes} (microseconds); and a file's or directory's the sink made, by path, where the
 * JDK opens the file for {@code futimens} ({@link TreeFiles#ownTimes}). The call is
 * {@code utimensat(..., AT_SYMLINK_NOFOLLOW)} in
 * {@code librdflux-fs.so} ({@code src/main/native}), which Maven's native-fs profile packages
 * in the jar; it is copied to a private temporary directory named with this JVM's pid, loaded,
 * and deleted at once (the loaded copy stays mapped). A JVM killed in that moment leaves the
 * directory; the next one to load the library removes such leftovers of dead pids. Where the library
 * is missing or cannot load, {@link #set} says so and the caller uses the JDK's call: a
 * link's time then keeps microseconds, and nothing fails.
 */
final class LinkTimes {

    /** Where the native-fs profile puts the library inside the jar. */
    static final String RESOURCE = "/native/linux-x86_64/librdflux-fs.so";
    /** The temporary copies' directories: {@code rdma-flux-fs-PID-RANDOM}. */
    static final String COPY_PREFIX = "rdma-flux-fs-";
    private static final String LIB_FILE = "librdflux-fs.so";

    private static final boolean LOADED = load();
    /** How the JDK spells file names as bytes (what it passes to the system's calls). */
    private static final Charset NAMES = Charset.forName(
            System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name()));

    private LinkTimes() {
    }

    /** Whether nanosecond link times are available here. */
    static boolean available() {
        return LOADED;
    }

    /**
     * Sets {@code link}'s own modification and access times (of whatever it is, never followed); false when that could not be done
     * here (no library, or the call failed), and the caller's JDK call does it (and reports
     * its error in the JDK's words).
     */
    static boolean set(Path link, long mtimeNanos, long atimeNanos) {
        if (!LOADED) {
            return false;
        }
        byte[] name = link.toAbsolutePath().toString().getBytes(NAMES);
        return setTimes0(name, Math.floorDiv(mtimeNanos, 1_000_000_000L), Math.floorMod(mtimeNanos, 1_000_000_000L),
                Math.floorDiv(atimeNanos, 1_000_000_000L), Math.floorMod(atimeNanos, 1_000_000_000L)) == 0;
    }

    private static boolean load() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return false;
        }
        try (InputStream in = LinkTimes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return false;   // built without the native-fs profile
            }
            Path dir = Files.createTempDirectory(COPY_PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path lib = dir.resolve(LIB_FILE);
            try {
                Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
                System.load(lib.toString());
            } finally {
                Files.deleteIfExists(lib);
                removeStaleCopies(dir.getParent(), dir);
                Files.deleteIfExists(dir);
            }
            setTimes0(new byte[0], 0, 0, 0, 0);   // binds the method now: an old library fails here, not later
            return true;
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            return false;
        }
    }

    /**
     * Removes what JVMs killed between copying and deleting left in {@code tmp}: this user's
     * {@code rdma-flux-fs-PID-*} directories whose PID is not a live process, each holding
     * nothing but the library. Best effort: anything else is left as it is.
     *
     * @param own this JVM's directory, whose owner stands for this user
     * @return the directories removed
     */
    static java.util.List<Path> removeStaleCopies(Path tmp, Path own) {
        java.util.List<Path> removed = new java.util.ArrayList<>();
        try (java.nio.file.DirectoryStream<Path> copies = Files.newDirectoryStream(tmp, COPY_PREFIX + "*")) {
            java.nio.file.attribute.UserPrincipal user = Files.getOwner(own, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            for (Path dir : copies) {
                if (dir.equals(own) || !ownerDead(dir.getFileName().toString())
                        || !Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        || !user.equals(Files.getOwner(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS))) {
                    continue;
                }
                try {
                    Files.deleteIfExists(dir.resolve(LIB_FILE));
                    Files.delete(dir);   // fails, and leaves it, when anything else is inside
                    removed.add(dir);
                } catch (IOException e) {
                    // Not as this class leaves them: not ours to remove.
                }
            }
        } catch (IOException | RuntimeException e) {
            // Cleaning up after others never stops this JVM from using the library.
        }
        return removed;
    }

    /** Whether the PID in a copy's name ({@code rdma-flux-fs-PID-RANDOM}) is no live process; false for other names. */
    private static boolean ownerDead(String name) {
        String rest = name.substring(COPY_PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash <= 0 || dash > 18 || !rest.substring(0, dash).chars().allMatch(Character::isDigit)) {
            return false;
        }
        return ProcessHandle.of(Long.parseLong(rest.substring(0, dash))).map(p -> !p.isAlive()).orElse(true);
    }

    private static native int setTimes0(byte[] path, long mtimeSec, long mtimeNanos, long atimeSec, long atimeNanos);
}
