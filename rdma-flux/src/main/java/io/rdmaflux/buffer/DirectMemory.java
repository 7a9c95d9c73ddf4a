package io.rdmaflux.buffer;

import java.lang.management.ManagementFactory;

/**
 * The JVM's limit on direct (off-heap) buffers, where receive rings and buffer pools live.
 * Read once: the limit is fixed for a JVM's life, and asking the management beans costs
 * start-up time.
 */
public final class DirectMemory {

    private DirectMemory() {
    }

    /** {@code -XX:MaxDirectMemorySize}, or its default, the heap's limit, when it is not set. */
    public static long limit() {
        return Limit.BYTES;
    }

    /** Formats bytes as people read them: "64 MiB", "1.5 GiB", "512 KiB", "100 B". */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.1f", v))
                + " " + units[u];
    }

    /** Computed on first use only. */
    private static final class Limit {
        static final long BYTES = read();

        private static long read() {
            try {
                var bean = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
                long v = Long.parseLong(bean.getVMOption("MaxDirectMemorySize").getValue());
                return v > 0 ? v : Runtime.getRuntime().maxMemory();
            } catch (RuntimeException | LinkageError e) {
                // Not HotSpot: its default is the heap's limit, which is the best guess left.
                return Runtime.getRuntime().maxMemory();
            }
        }
    }
}
