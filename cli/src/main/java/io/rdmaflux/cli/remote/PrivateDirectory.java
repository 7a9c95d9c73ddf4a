package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * A directory of this user's alone, for sockets that must not be reachable by anyone else (the
 * ssh masters', the warm agent's): made 0700 with any missing parent, and used only when it is a
 * real directory (not a symbolic link), owned by this user, with no group or other permissions.
 */
public final class PrivateDirectory {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private PrivateDirectory() {
    }

    /**
     * The user's place for {@code name}: {@code $XDG_RUNTIME_DIR/rdflux/NAME}, else
     * {@code $HOME/.cache/rdflux/NAME}; null when neither is an absolute path.
     */
    public static Path userPlace(Map<String, String> env, String name) {
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (runtime != null && runtime.startsWith("/")) {
            return Path.of(runtime, "rdflux", name);
        }
        String home = env.get("HOME");
        if (home != null && home.startsWith("/")) {
            return Path.of(home, ".cache", "rdflux", name);
        }
        return null;
    }

    /** Makes {@code dir} (0700) if missing; null when it is this user's alone, else why not, in a few words. */
    public static String ensure(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                // Each new level private from its creation: no moment where another user could enter.
                for (int i = 1; i <= dir.getNameCount(); i++) {
                    Path p = dir.getRoot().resolve(dir.subpath(0, i));
                    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                        try {
                            Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PRIVATE));
                        } catch (FileAlreadyExistsException raced) {
                            // another call made it first: checked below like any directory
                        }
                    }
                }
            }
            return check(dir);
        } catch (IOException | UnsupportedOperationException e) {
            return "cannot make " + dir + " (" + e.getMessage() + ")";
        }
    }

    /** Null when {@code dir} exists and is this user's alone, else why not; makes nothing. */
    public static String check(Path dir) {
        try {
            PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory()) {
                return dir + " is not a directory";
            }
            String me = System.getProperty("user.name");
            if (!a.owner().getName().equals(me)) {
                return dir + " belongs to " + a.owner().getName() + ", not " + me;
            }
            if (!PRIVATE.containsAll(a.permissions())) {
                return dir + " is open to others (mode " + PosixFilePermissions.toString(a.permissions())
                        + "; chmod 700 it)";
            }
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return "cannot read " + dir + " (" + e.getMessage() + ")";
        }
    }
}
