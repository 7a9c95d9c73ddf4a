package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This host's physical memory, for the checks that keep direct memory within it: the tools'
 * buffer budget and the warm agent's room for sessions.
 */
public final class HostMemory {

    private HostMemory() {
    }

    /** MemTotal from /proc/meminfo in bytes, or 0 when unknown (not Linux): no cap from it then. */
    public static long total() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Unknown: the JVM's own limit is the only check.
        }
        return 0;
    }
}
