package io.rdmaflux.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a stream's payload bytes for the progress line and the final bandwidth report.
 * The progress line redraws itself on a terminal; it is written to stderr only.
 */
final class Meter {

    private final AtomicLong bytes = new AtomicLong();
    private volatile long start = System.nanoTime();
    private volatile long total = -1;
    private volatile long end;
    private volatile long files = -1;
    private volatile long totalFiles = -1;
    private Thread ticker;

    /**
     * Restarts the clock: called when the stream is established, so that the bandwidth covers
     * the transfer, not the wait for the peer (as rdma-pipe reports it).
     */
    void streamStarted() {
        start = System.nanoTime();
    }

    void add(long n) {
        bytes.addAndGet(n);
    }

    /** Sets the count, for a meter fed from reports (a remote end's) rather than chunk by chunk. */
    void set(long n) {
        bytes.set(n);
    }

    /** Files complete and how many there are (-1 where unknown), for a stream of files. */
    void files(long done, long total) {
        files = done;
        totalFiles = total;
    }

    long bytes() {
        return bytes.get();
    }

    /** The expected total, once known (-1 when unknown). */
    void total(long total) {
        this.total = total;
    }

    void stop() {
        end = System.nanoTime();
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Console.stderr().println();
        }
    }

    double seconds() {
        long e = end != 0 ? end : System.nanoTime();
        return Math.max(1e-9, (e - start) / 1e9);
    }

    /** rdma-pipe's report line: decimal gigabytes per second. */
    String bandwidth() {
        return String.format(Locale.ROOT, "Bandwidth %.3f GB/s", bytes.get() / seconds() / 1e9);
    }

    /** A one-line summary: files (when counted), bytes and time. */
    String summary() {
        return (files >= 0 ? files + " files, " : "")
                + String.format(Locale.ROOT, "%d bytes (%s) in %.2f s", bytes.get(), human(bytes.get()), seconds());
    }

    /** Starts redrawing a progress line on stderr twice a second. */
    void startProgress() {
        startProgress(() -> { });
    }

    /** Starts redrawing a progress line on stderr twice a second, calling {@code update} before each. */
    void startProgress(Runnable update) {
        PrintStream err = Console.stderr();
        ticker = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(500);
                    update.run();
                    err.print("\r" + line() + "   ");
                    err.flush();
                }
            } catch (InterruptedException e) {
                err.print("\r" + line() + "   ");
            }
        }, "progress");
        ticker.setDaemon(true);
        ticker.start();
    }

    String line() {
        long b = bytes.get();
        double s = seconds();
        double rate = b / s;
        StringBuilder l = new StringBuilder(human(b));
        long t = total;
        if (t > 0) {
            l.append(" / ").append(human(t)).append(String.format(Locale.ROOT, " %3d%%", Math.min(100, b * 100 / t)));
        }
        if (files >= 0) {
            l.append("  ").append(files).append(totalFiles >= 0 ? "/" + totalFiles : "").append(" files");
        }
        l.append("  ").append(human((long) rate)).append("/s");
        if (t > 0 && rate > 0 && b < t) {
            long eta = (long) ((t - b) / rate);
            l.append(String.format(Locale.ROOT, "  ETA %d:%02d:%02d", eta / 3600, eta / 60 % 60, eta % 60));
        }
        l.append(String.format(Locale.ROOT, "  %ds", (long) s));
        return l.toString();
    }

    static String human(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
    }
}
