package io.rdmaflux.cli.standby;

import io.rdmaflux.cli.remote.LockFile;
import io.rdmaflux.cli.remote.PrivateDirectory;
import java.io.IOException;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the standbys of one context wait: the user's private directory ({@code
 * $XDG_RUNTIME_DIR/rdflux/standby}, else {@code $HOME/.cache/rdflux/standby}) and the context's
 * key, which the client computed (the JVM never recomputes it). Each key has {@link #SLOTS}
 * slots, {@code KEY-N.sock} and {@code KEY-N.lock}; a live standby holds its slot's lock for its
 * whole life, and removes the lock file as it gives the slot up ({@link #release}). At most {@link #SLOTS} standbys per key and {@link #PER_USER} per user.
 */
public record StandbyPlace(Path dir, String key) {

    /** Standbys per key: one serving while the next warms up. */
    public static final int SLOTS = 2;
    /** Standbys per user, over all keys (all contexts). */
    public static final int PER_USER = 8;
    /** The longest socket path the kernel takes (sun_path, with its NUL). */
    private static final int MAX_SOCKET_PATH = 107;
    private static final Pattern KEY = Pattern.compile("[0-9a-f]{24}");

    /** The place for {@code key} in this environment; null when the key is malformed or there is no place. */
    public static StandbyPlace of(Map<String, String> env, String key) {
        if (key == null || !KEY.matcher(key).matches()) {
            return null;
        }
        Path dir = PrivateDirectory.userPlace(env, "standby");
        return dir == null ? null : new StandbyPlace(dir, key);
    }

    /** Slot {@code n}'s socket. */
    public Path socket(int n) {
        return dir.resolve(key + "-" + n + ".sock");
    }

    /** Slot {@code n}'s lock, held by its live standby. */
    public Path lock(int n) {
        return dir.resolve(key + "-" + n + ".lock");
    }

    /** Whether the sockets' paths fit a unix socket address. */
    public boolean fits() {
        return socket(SLOTS - 1).toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH;
    }

    /** Null when the directory is (made) private and the sockets fit; else why not. */
    public String ensure() {
        String why = PrivateDirectory.ensure(dir);
        return why != null ? why : fits() ? null : socket(0) + " is too long a path for a socket";
    }

    /**
     * Whether another standby may start: fewer than {@link #SLOTS} standbys of this key wait on
     * their sockets, and fewer than {@link #PER_USER} in all. A socket counts only while its
     * slot's lock is held: a standby killed outright (SIGKILL) leaves its socket's name, and two
     * such names would keep their key from ever getting a standby again; a name found so is
     * removed. (A standby still warming up has no socket yet; its slot's lock is what keeps a key
     * at {@link #SLOTS}.) Without the kernel's list of locks every socket counts.
     */
    public boolean roomForAnother() {
        // Each socket's identity first, then the locks: see stale.
        Map<Path, Map<String, Object>> sockets = new LinkedHashMap<>();
        try (DirectoryStream<Path> d = Files.newDirectoryStream(dir, "*.sock")) {
            for (Path socket : d) {
                sockets.put(socket, identity(socket));
            }
        } catch (IOException | DirectoryIteratorException e) {
            return true;   // no directory yet: nothing waits there
        }
        LockFile held = LockFile.locksNow();
        int ours = 0;
        int all = 0;
        for (Map.Entry<Path, Map<String, Object>> s : sockets.entrySet()) {
            if (!stale(s.getKey(), s.getValue(), held)) {
                all++;
                if (s.getKey().getFileName().toString().startsWith(key + "-")) {
                    ours++;
                }
            }
        }
        return ours < SLOTS && all < PER_USER;
    }

    /** A slot's socket: {@code KEY-N.sock}, whose lock is {@code KEY-N.lock}. */
    private static final Pattern SOCKET = Pattern.compile("([0-9a-f]{24}-[0-9]+)\\.sock");

    /**
     * Whether {@code socket} was left by a standby that is gone (then its name is removed): its
     * slot's lock is held by no process. Removed only if the name still names the file it named
     * ({@code before}) before the locks were read: a standby that took the slot since deletes
     * that name and binds its own socket, another file, only after its warm-up, seconds later.
     */
    private boolean stale(Path socket, Map<String, Object> before, LockFile held) {
        Matcher m = SOCKET.matcher(socket.getFileName().toString());
        if (held == null || before == null || !m.matches()) {
            return false;   // cannot tell: it counts
        }
        if (held.held(dir.resolve(m.group(1) + ".lock"))) {
            return false;
        }
        if (before.equals(identity(socket))) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                // Not counted anyway; the slot's next standby removes it.
            }
        }
        return true;
    }

    /** The file {@code p} names (device, inode, change time); null when it names none. */
    private static Map<String, Object> identity(Path p) {
        try {
            return Files.readAttributes(p, "unix:dev,ino,ctime", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** A slot taken: its number and the lock held on it until this process ends. */
    public record Slot(int number, FileLock lock) {
    }

    /**
     * Takes the first free slot (its lock, {@link LockFile#tryTake}), or null when every slot is
     * held by a live standby.
     */
    public Slot take() throws IOException {
        for (int n = 0; n < SLOTS; n++) {
            FileLock lock = LockFile.tryTake(lock(n));
            if (lock != null) {
                return new Slot(n, lock);   // its channel stays open with it, for the process's life
            }
        }
        return null;
    }

    /**
     * Gives {@code slot} up: its lock file's name removed (no file is left per key and slot), then
     * its lock released, so the next standby of the slot makes a new one.
     */
    public void release(Slot slot) {
        LockFile.removeName(lock(slot.number()));
        try {
            slot.lock().channel().close();   // releases the lock
        } catch (IOException e) {
            // The process ends in a moment, which releases it anyway.
        }
    }
}
