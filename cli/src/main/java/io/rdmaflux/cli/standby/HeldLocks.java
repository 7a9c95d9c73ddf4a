package io.rdmaflux.cli.standby;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files some live process holds a lock on, read from the kernel's list ({@code
 * /proc/locks}) without taking or touching any lock: a look by try-lock would have to open the
 * lock file, and closing that descriptor drops every fcntl lock this process holds on the file
 * (a standby's own slot, a test holding a slot). A lock's holder is alive by definition: the
 * kernel drops the locks of a process as it ends, SIGKILL included.
 */
final class HeldLocks {

    /** {@code MAJOR:MINOR:INODE} of a line of {@code /proc/locks}: hex, hex, decimal. */
    private static final Pattern FILE = Pattern.compile("([0-9a-f]+):([0-9a-f]+):([0-9]+)");

    /** A file as the kernel names it in {@code /proc/locks}: its device's numbers and its inode. */
    record FileId(long major, long minor, long inode) {
    }

    private final Set<FileId> held;

    private HeldLocks(Set<FileId> held) {
        this.held = held;
    }

    /** The locks held now, from {@code procLocks}; null when it cannot be read (not Linux). */
    static HeldLocks read(Path procLocks) {
        Set<FileId> held = new HashSet<>();
        try {
            for (String line : Files.readAllLines(procLocks)) {
                String[] f = line.trim().split("\\s+");
                // "N: -> POSIX ..." is a process waiting for the lock, not holding it.
                if (f.length < 6 || f[1].equals("->")) {
                    continue;
                }
                for (String field : f) {
                    Matcher m = FILE.matcher(field);
                    if (m.matches()) {
                        held.add(new FileId(Long.parseLong(m.group(1), 16), Long.parseLong(m.group(2), 16),
                                Long.parseLong(m.group(3))));
                        break;
                    }
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            return null;
        }
        return new HeldLocks(held);
    }

    /** Whether some process holds a lock on the file {@code path} names now; false when it names none. */
    boolean held(Path path) {
        FileId id = id(path);
        return id != null && held.contains(id);
    }

    /** The kernel's name of the file {@code path} names (not following a link); null when there is none. */
    static FileId id(Path path) {
        try {
            long dev = ((Number) Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS)).longValue();
            long inode = ((Number) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue();
            // glibc's dev_t: the major's low 12 bits at 8, the minor's low 8 bits at 0, the rest above bit 32 (major) and 20 (minor).
            long major = ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
            long minor = (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
            return new FileId(major, minor, inode);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return null;
        }
    }
}
