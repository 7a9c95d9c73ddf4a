package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The memory this process may use, for the checks that keep direct memory within it: the tools'
 * buffer budget and the warm agent's room for sessions. That is the host's RAM, or less when the
 * process runs in a control group with a memory limit (a container, a systemd unit with
 * {@code MemoryMax}): there the kernel kills a process that goes beyond the limit, whatever the
 * host has, so the limit is what a check must keep to.
 */
public final class HostMemory {

    /** Limits at or above this mean "none" (cgroup v1 writes 2^63 rounded down to a page). */
    private static final long NO_LIMIT = 1L << 62;

    /** How much ({@code bytes}, 0 when unknown), and whether a control group's limit set it rather than the RAM. */
    public record Room(long bytes, boolean group) {
    }

    private HostMemory() {
    }

    /** The host's RAM or this process's control group's limit, the smaller; 0 bytes when unknown. */
    public static Room room() {
        return room(Path.of("/proc/meminfo"), Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /** {@link #room()}'s bytes: 0 when unknown (not Linux), no cap from it then. */
    public static long total() {
        return room().bytes();
    }

    static Room room(Path meminfo, Path selfCgroup, Path cgroupRoot) {
        long ram = memTotal(meminfo);
        long limit = cgroupLimit(selfCgroup, cgroupRoot);
        if (limit > 0 && (ram == 0 || limit < ram)) {
            return new Room(limit, true);
        }
        return new Room(ram, false);
    }

    /** MemTotal from /proc/meminfo in bytes, or 0 when unknown. */
    static long memTotal(Path meminfo) {
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Unknown: the JVM's own limit is the only check.
        }
        return 0;
    }

    /**
     * The smallest memory limit on this process's control group and the groups above it, in
     * bytes, or 0 when there is none or it cannot be read. cgroup v2 ({@code 0::PATH}, the
     * unified tree at the root) names it {@code memory.max}; v1 ({@code N:...memory...:PATH}
     * under {@code memory/}) {@code memory.limit_in_bytes}. A group not under the mount (a
     * container that sees its own group as the root) is read from the levels that exist.
     */
    static long cgroupLimit(Path selfCgroup, Path cgroupRoot) {
        List<String> lines;
        try {
            lines = Files.readAllLines(selfCgroup);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        long best = 0;
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length != 3 || !f[2].startsWith("/")) {
                continue;
            }
            long limit = 0;
            if (f[0].equals("0") && f[1].isEmpty() && Files.exists(cgroupRoot.resolve("cgroup.controllers"))) {
                limit = smallestUp(cgroupRoot, f[2], "memory.max");
            } else if (List.of(f[1].split(",")).contains("memory")) {
                limit = smallestUp(cgroupRoot.resolve("memory"), f[2], "memory.limit_in_bytes");
            }
            if (limit > 0 && (best == 0 || limit < best)) {
                best = limit;
            }
        }
        return best;
    }

    /** The smallest limit in {@code file} at {@code group}'s level and each above it under {@code mount}; 0 for none. */
    private static long smallestUp(Path mount, String group, String file) {
        long best = 0;
        Path dir = mount;
        for (String part : ("." + group).split("/")) {
            if (!part.equals(".") && !part.isEmpty()) {
                if (part.equals("..")) {
                    return best;   // not a name the kernel writes: read nothing outside the mount
                }
                dir = dir.resolve(part);
            }
            long limit = read(dir.resolve(file));
            if (limit > 0 && (best == 0 || limit < best)) {
                best = limit;
            }
        }
        return best;
    }

    private static long read(Path file) {
        try {
            String s = Files.readString(file).strip();
            if (s.equals("max")) {
                return 0;
            }
            long v = Long.parseLong(s);
            return v > 0 && v < NO_LIMIT ? v : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
