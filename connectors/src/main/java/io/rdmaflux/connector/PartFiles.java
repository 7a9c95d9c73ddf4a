package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import reactor.util.Logger;

/**
 * The temporary names of {@link FileSink}'s partial files, and the clean-up of those a killed
 * process left behind. A name says who writes it: {@code .NAME.rdflux-TAG-PID-RANDOM.part},
 * where TAG stands for this host and PID namespace, so that a later run can tell a leftover
 * (same TAG, process gone) from a file that a live process writes, here or on another host
 * sharing the directory.
 */
final class PartFiles {

    /** Longest part of the target's name kept in a temporary name (names are at most 255 bytes). */
    private static final int MAX_NAME = 180;
    private static final String MARK = ".rdflux-";
    private static final String SUFFIX = ".part";
    private static final String TAG = hostTag();
    private static final long PID = ProcessHandle.current().pid();

    private PartFiles() {
    }

    /** A fresh temporary name beside {@code target}, for this process. */
    static Path next(Path target) {
        String random = Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0xfffffff | 0x10000000);
        return target.resolveSibling(prefix(target) + TAG + "-" + PID + "-" + random + SUFFIX);
    }

    /**
     * Removes the partial files of {@code target} that a process of this host left when it
     * died, and logs (at INFO) each one removed or left alone.
     */
    static void removeStale(Path target, Logger log) {
        String prefix = prefix(target);
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(target.getParent(),
                entry -> {
                    String n = entry.getFileName().toString();
                    return n.startsWith(prefix) && n.endsWith(SUFFIX);
                })) {
            for (Path part : parts) {
                String[] who = part.getFileName().toString()
                        .substring(prefix.length(), part.getFileName().toString().length() - SUFFIX.length()).split("-");
                long pid = who.length == 3 && who[0].equals(TAG) ? parsePid(who[1]) : -1;
                if (pid < 0) {
                    log.info("found {}, a partial file another host or an older version wrote; left alone", part);
                } else if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    log.info("found {}, a partial file that process {} may still be writing; left alone", part, pid);
                } else if (Files.deleteIfExists(part)) {
                    log.info("removed {}, a partial file left by process {}, which ended without finishing it", part, pid);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Tidying up is a courtesy: the write itself does not depend on it.
            log.debug("could not look for leftover partial files of {}: {}", target, e.toString());
        }
    }

    private static String prefix(Path target) {
        String name = target.getFileName().toString();
        return "." + (name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name) + MARK;
    }

    private static long parsePid(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Eight hex digits for the host name and PID namespace: where a PID means a process. */
    private static String hostTag() {
        String host = read(Path.of("/proc/sys/kernel/hostname"));
        if (host.isEmpty()) {
            host = String.valueOf(System.getenv("HOSTNAME"));
        }
        String pidNamespace;
        try {
            pidNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException | RuntimeException e) {
            pidNamespace = "";
        }
        return String.format(Locale.ROOT, "%08x", (host.trim() + "/" + pidNamespace).hashCode());
    }

    private static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
