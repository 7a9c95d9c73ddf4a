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
 * in the jar; it is copied to a private temporary directory, loaded, and deleted at once (the
 * loaded copy stays mapped), so nothing is left behind however the JVM ends. Where the library
 * is missing or cannot load, {@link #set} says so and the caller uses the JDK's call: a
 * link's time then keeps microseconds, and nothing fails.
 */
final class LinkTimes {

    /** Where the native-fs profile puts the library inside the jar. */
    static final String RESOURCE = "/native/linux-x86_64/librdflux-fs.so";

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
            Path dir = Files.createTempDirectory("rdma-flux-fs-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path lib = dir.resolve("librdflux-fs.so");
            try {
                Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
                System.load(lib.toString());
            } finally {
                Files.deleteIfExists(lib);
                Files.deleteIfExists(dir);
            }
            setTimes0(new byte[0], 0, 0, 0, 0);   // binds the method now: an old library fails here, not later
            return true;
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            return false;
        }
    }

    private static native int setTimes0(byte[] path, long mtimeSec, long mtimeNanos, long atimeSec, long atimeNanos);
}
