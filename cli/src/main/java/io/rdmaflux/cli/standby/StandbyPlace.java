package io.rdmaflux.cli.standby;

import io.rdmaflux.cli.remote.PrivateDirectory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where the standbys of one context wait: the user's private directory ({@code
 * $XDG_RUNTIME_DIR/rdflux/standby}, else {@code $HOME/.cache/rdflux/standby}) and the context's
 * key, which the client computed (the JVM never recomputes it). Each key has {@link #SLOTS}
 * slots, {@code KEY-N.sock} and {@code KEY-N.lock}; a live standby holds its slot's lock for its
 * whole life. At most {@link #SLOTS} standbys per key and {@link #PER_USER} per user.
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
     * Whether another standby may start: fewer than {@link #SLOTS} sockets of this key and fewer
     * than {@link #PER_USER} in all. (A standby still warming up has no socket yet; its slot's
     * lock is what keeps a key at {@link #SLOTS}.)
     */
    public boolean roomForAnother() {
        return count(key + "-*.sock") < SLOTS && count("*.sock") < PER_USER;
    }

    private int count(String glob) {
        int n = 0;
        try (DirectoryStream<Path> d = Files.newDirectoryStream(dir, glob)) {
            for (Path ignored : d) {
                n++;
            }
        } catch (IOException e) {
            return 0;   // no directory yet: nothing waits there
        }
        return n;
    }

    /** A slot taken: its number and the lock held on it until this process ends. */
    public record Slot(int number, FileLock lock) {
    }

    /** Takes the first free slot (its lock), or null when every slot is held by a live standby. */
    public Slot take() throws IOException {
        for (int n = 0; n < SLOTS; n++) {
            FileChannel f = FileChannel.open(lock(n), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = f.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;   // this very process holds it (tests)
            }
            if (lock != null) {
                return new Slot(n, lock);   // its channel stays open with it, for the process's life
            }
            f.close();
        }
        return null;
    }
}
