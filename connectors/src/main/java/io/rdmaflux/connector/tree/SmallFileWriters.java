package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The tree sink's small-file writers: a file of at most {@link #QUEUED_MAX} bytes is gathered
 * in a pooled buffer and, once its end is verified, written, given its mode and time and put in
 * place by one of {@code threads} threads while the sink parses on (small files cost system
 * calls rather than bandwidth, and independent files can make them at once). What they finish
 * is reported on the sink's thread ({@link #drain}, each {@link Job}'s {@code done}); the sink
 * waits for them ({@link #awaitAll}) before anything that must see the files in place.
 * All methods but the writers' own task are for the sink's thread.
 */
final class SmallFileWriters {

    /** The largest file a writer thread writes (one pooled buffer); larger ones are written as their data arrives. */
    static final int QUEUED_MAX = 64 * 1024;
    /** The most small files one stream holds gathered or queued: 16 MiB of buffers. */
    static final int QUEUED_FILES = 256;

    private final int threads;
    private final TreeFiles files;
    /** Started with the first small file. */
    private ExecutorService writers;
    private final Semaphore budget = new Semaphore(QUEUED_FILES);
    /** Direct buffers of QUEUED_MAX bytes, reused: no zeroing, no garbage, no copy into a direct buffer on write. */
    private final Queue<ByteBuffer> buffers = new ConcurrentLinkedQueue<>();
    private final BlockingQueue<Written> written = new LinkedBlockingQueue<>();
    /** Paths of the files queued and not drained yet. */
    private final Set<String> queued = new HashSet<>();

    /**
     * A gathered file for a writer: its contents (a buffer {@link #take} gave, which the writer
     * gives back), where it goes, and what to tell on the sink's thread once it is in place
     * ({@code done} given null) or failed.
     */
    record Job(TreeEntry entry, Path target, boolean fresh, ByteBuffer contents, Consumer<Exception> done) {
    }

    /** What a writer thread did with a file: {@code failure} null when it is in place. */
    private record Written(Job job, Exception failure) {
    }

    SmallFileWriters(int threads, TreeFiles files) {
        this.threads = threads;
        this.files = files;
    }

    /**
     * A buffer for a file of {@code size} bytes, limited to it, waiting for the writers while
     * they hold the whole budget; null when the file is not one for the writers (none, too
     * large) or files still arriving hold the budget, and it is written as its data arrives.
     */
    ByteBuffer take(long size) throws IOException {
        if (threads == 0 || size > QUEUED_MAX) {
            return null;
        }
        while (!budget.tryAcquire()) {
            if (queued.isEmpty()) {
                return null;
            }
            awaitOne();
        }
        ByteBuffer b = buffers.poll();
        return (b != null ? b : ByteBuffer.allocateDirect(QUEUED_MAX)).clear().limit((int) size);
    }

    /** Gives back a buffer {@link #take} gave. Any thread. */
    void release(ByteBuffer b) {
        buffers.offer(b);
        budget.release();
    }

    /** Whether a queued file, not reported yet, is to be placed at {@code path}. */
    boolean holds(String path) {
        return queued.contains(path);
    }

    /** Hands a gathered file to a writer. */
    void queue(Job job) {
        if (writers == null) {
            AtomicInteger count = new AtomicInteger();
            writers = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "rdflux-tree-writer-" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        queued.add(job.entry().path());
        writers.execute(() -> written.add(write(job)));
    }

    /**
     * On a writer thread: writes a gathered file and puts it in place, or removes what it wrote.
     * Always returns, whatever it catches: the sink's thread waits for one report per queued
     * file, so an Error left to the pool (a class that fails to initialize, say) stalled the
     * stream for good.
     */
    private Written write(Job job) {
        Path path = null;
        try {
            TreeFiles.Output out = TreeFiles.createFile(job.target(), job.fresh());
            path = out.path();
            try (FileChannel ch = out.channel()) {
                ByteBuffer b = job.contents();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                if (files.fsync()) {
                    ch.force(true);
                }
            }
            files.place(path, job.target(), job.entry());
            return new Written(job, null);
        } catch (Throwable x) {
            TreeFiles.deleteQuietly(path);
            return new Written(job, x instanceof Exception e ? e
                    : new IOException("could not write " + job.entry().path() + " (" + x + ")", x));
        } finally {
            release(job.contents());
        }
    }

    /** Reports what the writers have finished. */
    void drain() {
        for (Written w; (w = written.poll()) != null; ) {
            done(w);
        }
    }

    private void done(Written w) {
        queued.remove(w.job().entry().path());
        w.job().done().accept(w.failure());
    }

    /** Waits until every queued file is in place or failed, and reports them. */
    void awaitAll() throws IOException {
        while (!queued.isEmpty()) {
            awaitOne();
        }
    }

    private void awaitOne() throws IOException {
        try {
            Written w;
            // No deadline: a writer is at a system call on a local file, as the sink's thread would be.
            while ((w = written.poll(1, TimeUnit.SECONDS)) == null) {
                continue;
            }
            done(w);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while small files were being written");
        }
    }

    /**
     * Stops the writers once the files queued are in place: they arrived whole and verified,
     * so they stay, like the files written before a failure. Past a bound, the writers are
     * interrupted: a file being written then removes what it wrote, queued ones are dropped.
     */
    void stop() {
        if (writers == null) {
            return;
        }
        writers.shutdown();
        try {
            if (!writers.awaitTermination(30, TimeUnit.SECONDS)) {
                writers.shutdownNow();
                writers.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException x) {
            writers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** After a failed stream: the files the writers placed and nobody reported, counted as written. */
    long placedUnreported() {
        long n = 0;
        for (Written w; (w = written.poll()) != null; ) {
            if (w.failure() == null) {
                n++;
            }
        }
        return n;
    }
}
