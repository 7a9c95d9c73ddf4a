package io.rdmaflux.cli.remote;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a running job has moved so far, counted from several threads and read as a
 * {@link AgentMessage.Progress}: payload bytes, the files of a tree complete at this end (with
 * their bytes, and how many of them a sync kept as they were), and the totals the tree's
 * source counted; the bytes of sparse files' holes passed, and the hard links in place.
 */
public final class ProgressCount {

    private final AtomicLong bytes = new AtomicLong();
    // -1 until the job reports any: a stream that is not a tree has no files.
    private final AtomicLong files = new AtomicLong(-1);
    private final AtomicLong fileBytes = new AtomicLong(-1);
    private final AtomicLong kept = new AtomicLong(-1);
    private final AtomicLong holes = new AtomicLong(-1);
    private final AtomicLong links = new AtomicLong(-1);
    private final AtomicReference<long[]> totals = new AtomicReference<>(new long[] {-1, -1});

    /** {@code n} more payload bytes moved. */
    public void moved(long n) {
        bytes.addAndGet(n);
    }

    /** One file of a tree is complete at this end, with {@code n} content bytes. */
    public void file(long n) {
        files.updateAndGet(f -> Math.max(f, 0) + 1);
        fileBytes.updateAndGet(b -> Math.max(b, 0) + n);
    }

    /** One file of a tree was current at this end (a sync) and kept: complete, no data sent. */
    public void kept() {
        file(0);
        kept.updateAndGet(k -> Math.max(k, 0) + 1);
    }

    /** {@code n} bytes of a file's zeros passed as a hole: done, with few bytes moved. */
    public void hole(long n) {
        holes.updateAndGet(h -> Math.max(h, 0) + n);
    }

    /** A hard link of a tree is in place at this end: a second name, not a file. */
    public void link() {
        links.updateAndGet(l -> Math.max(l, 0) + 1);
    }

    /** The tree's totals, as its source counted them (for the coordinator's progress line). */
    public void totals(long f, long b) {
        totals.set(new long[] {f, b});
    }

    public long bytes() {
        return bytes.get();
    }

    /** The counts now. */
    public AgentMessage.Progress now() {
        long[] t = totals.get();
        return new AgentMessage.Progress(bytes.get(), files.get(), fileBytes.get(), kept.get(), t[0], t[1], holes.get(),
                links.get());
    }
}
