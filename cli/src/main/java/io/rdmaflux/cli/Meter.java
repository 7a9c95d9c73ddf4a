package io.rdmaflux.cli;

import io.rdmaflux.text.Plural;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts a stream's payload bytes for the progress line and the final bandwidth report.
 * The progress line redraws itself on a terminal; it is written to stderr only, through
 * {@link Console}, which clears it before any other message. Its rate, and
 * the ETA drawn from it, are those of the last {@link #WINDOW_NS} (as pv shows them), so a
 * transfer that slows down or speeds up is not judged by its average since the start.
 */
final class Meter {

    /** The span of the recent rate. */
    static final long WINDOW_NS = 5_000_000_000L;

    private final LongSupplier clock;
    private final AtomicLong bytes = new AtomicLong();
    private volatile long start;
    private volatile long total = -1;
    private volatile long end;
    private volatile long files = -1;
    private volatile long totalFiles = -1;
    private volatile long links = -1;
    /** More to say at the end of the progress line (rdcp --to: each host's files), or null. */
    private volatile java.util.function.Supplier<String> detail;
    private Thread ticker;
    /** (time, bytes) samples of the last window, oldest first; guarded by "this". */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    /** Width of the last line drawn, so that a shorter one overwrites all of it. */
    private int drawn;

    Meter() {
        this(System::nanoTime);
    }

    /** A meter on another clock, for tests. */
    Meter(LongSupplier clock) {
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /**
     * Restarts the clock: called when the stream is established, so that the bandwidth covers
     * the transfer, not the wait for the peer (as rdma-pipe reports it).
     */
    void streamStarted() {
        start = clock.getAsLong();
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

    /** Hard links in place (-1 where unknown): second names of files, counted apart from them. */
    void links(long n) {
        links = n;
    }

    long bytes() {
        return bytes.get();
    }

    /** The expected total, once known (-1 when unknown). */
    void total(long total) {
        this.total = total;
    }

    void stop() {
        end = clock.getAsLong();
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // The final counts stay on screen, unless an error was printed already: then it is
            // the last line, and a progress line after it would look like the transfer went on.
            Console.endProgress(redraw());
        }
    }

    double seconds() {
        long e = end != 0 ? end : clock.getAsLong();
        return Math.max(1e-9, (e - start) / 1e9);
    }

    /** rdma-pipe's report line: decimal gigabytes per second. */
    String bandwidth() {
        return String.format(Locale.ROOT, "Bandwidth %.3f GB/s", bytes.get() / seconds() / 1e9);
    }

    /** A one-line summary: files (when counted), bytes and time. */
    String summary() {
        return (files >= 0 ? fileCount(files) + ", " : "")
                + String.format(Locale.ROOT, "%d bytes (%s) in %.2f s", bytes.get(), human(bytes.get()), seconds());
    }

    /**
     * A one-line summary of a copy of files: those written and their content bytes, those a
     * sync found current and kept, and the time.
     */
    String summary(long written, long writtenBytes, long kept) {
        return fileCount(written) + linkCount(", ") + String.format(Locale.ROOT, ", %d bytes (%s) in %.2f s", writtenBytes, human(writtenBytes),
                seconds()) + (kept > 0 ? "; " + fileCount(kept) + " already up to date" : "");
    }

    private static String fileCount(long n) {
        return Plural.count(n, "file");
    }

    /** The hard links, after {@code separator}, when there are any. */
    private String linkCount(String separator) {
        long n = links;
        return n > 0 ? separator + Plural.count(n, "link") : "";
    }

    /** What the progress line ends with, asked at each redraw. */
    void detail(java.util.function.Supplier<String> detail) {
        this.detail = detail;
    }

    /** Starts redrawing a progress line on stderr twice a second. */
    void startProgress() {
        startProgress(() -> { });
    }

    /** Starts redrawing a progress line on stderr twice a second, calling {@code update} before each. */
    void startProgress(Runnable update) {
        ticker = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(500);
                    update.run();
                    Console.progress(redraw());
                }
            } catch (InterruptedException e) {
                // stop() draws the last line, through Console, which knows whether it may.
            }
        }, "progress");
        ticker.setDaemon(true);
        ticker.start();
    }

    /** The progress line, from the start of the line, padded to cover the previous one. */
    synchronized String redraw() {
        String l = line();
        int width = l.length();
        StringBuilder b = new StringBuilder("\r").append(l);
        for (int i = width; i < drawn; i++) {
            b.append(' ');
        }
        drawn = width;
        return b.toString();
    }

    /** Bytes, total and percentage when known, recent rate, ETA from it, elapsed time. */
    synchronized String line() {
        long now = end != 0 ? end : clock.getAsLong();
        long b = bytes.get();
        double rate = recentRate(now, b);
        StringBuilder l = new StringBuilder(human(b));
        long t = total;
        if (t > 0) {
            l.append(" / ").append(human(t)).append(String.format(Locale.ROOT, " %3d%%", Math.min(100, b * 100 / t)));
        }
        if (files >= 0) {
            l.append("  ").append(files).append(totalFiles >= 0 ? "/" + totalFiles : "").append(" files")
                    .append(linkCount(", "));
        }
        l.append("  ").append(human((long) rate)).append("/s");
        if (t > 0 && rate > 0 && b < t) {
            long eta = (long) Math.ceil((t - b) / rate);
            l.append(String.format(Locale.ROOT, "  ETA %d:%02d:%02d", eta / 3600, eta / 60 % 60, eta % 60));
        }
        l.append(String.format(Locale.ROOT, "  %ds", (long) seconds()));
        java.util.function.Supplier<String> more = detail;
        if (more != null) {
            l.append("  ").append(more.get());
        }
        return l.toString();
    }

    /** Bytes per second over the last window (since the start, until a window has passed). */
    private double recentRate(long now, long b) {
        if (samples.isEmpty() || samples.peekFirst()[0] < start) {
            samples.clear();
            samples.addLast(new long[] {start, 0});
        }
        samples.addLast(new long[] {now, b});
        // Drop the oldest while the next is still at or before the window's start: the span
        // then covers the whole window.
        while (samples.size() > 2 && second()[0] <= now - WINDOW_NS) {
            samples.removeFirst();
        }
        long[] first = samples.peekFirst();
        long span = now - first[0];
        return span <= 0 ? 0 : (b - first[1]) * 1e9 / span;
    }

    private long[] second() {
        Iterator<long[]> it = samples.iterator();
        it.next();
        return it.next();
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
