package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.SinkOptions;
import java.util.Objects;

/**
 * How a {@link TreeSink} writes. Immutable; each {@code withX} returns a copy.
 *
 * <p><b>Memory bound.</b> The sink holds at most {@code io.prefetch()} received chunks, one
 * open file per file the sender reads at once (at most {@code maxOpenFiles}), at most 16 MiB of
 * small files gathered for its writer threads, and for the whole
 * tree: the paths of its directories (their modes and times are set last), of the files that
 * have hard links, and with {@code delete}, the names of every entry, packed; a stream that
 * makes it hold more than a quarter of the heap is refused.
 *
 * @param io           prefetch, fsync (each file and the directories, before success), scheduler
 * @param delete       whether entries of the destination that the source does not have are
 *                     removed at the end, inside the directories the stream lists; never after
 *                     any failure. Default false
 * @param maxOpenFiles the most files a stream may have open at once; a stream that opens more is
 *                     refused. Default 128 (a tree source has at most 65)
 * @param maxReported  the most failures and warnings listed by name in the report, and the
 *                     most warnings passed on to the listener (all are counted); default 1000
 * @param listener     progress, called on the writing thread
 * @param writerThreads how many threads of the sink's own write small files (up to 64 KiB) to
 *                     disk, beside the thread that reads the stream, which writes larger files
 *                     itself; 0 writes everything on that thread. Small files wait for a writer
 *                     in memory, at most 256 of them (16 MiB) per stream. Default: the number of
 *                     processors, at least 2 and at most 8
 * @param dryRun       read and check the whole stream, tell the listener what would be written
 *                     and (with {@code delete}) removed, and change nothing at the destination:
 *                     no directory made, no file written, nothing deleted, no mode or time set.
 *                     Default false
 */
public record TreeSinkOptions(SinkOptions io, boolean delete, int maxOpenFiles, int maxReported,
                              TreeListener listener, int writerThreads, boolean dryRun) {

    /** The defaults described above. */
    public static TreeSinkOptions defaults() {
        int writers = Math.min(8, Math.max(2, Runtime.getRuntime().availableProcessors()));
        return new TreeSinkOptions(SinkOptions.defaults(), false, 128, 1000, TreeListener.NONE, writers, false);
    }

    public TreeSinkOptions {
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(listener, "listener");
        if (maxOpenFiles <= 0 || maxReported < 0) {
            throw new IllegalArgumentException("maxOpenFiles must be positive and maxReported not negative");
        }
        if (writerThreads < 0 || writerThreads > 64) {
            throw new IllegalArgumentException("writerThreads must be between 0 and 64, was " + writerThreads);
        }
    }

    public TreeSinkOptions withIo(SinkOptions v) {
        return new TreeSinkOptions(v, delete, maxOpenFiles, maxReported, listener, writerThreads, dryRun);
    }

    public TreeSinkOptions withDelete(boolean v) {
        return new TreeSinkOptions(io, v, maxOpenFiles, maxReported, listener, writerThreads, dryRun);
    }

    public TreeSinkOptions withMaxOpenFiles(int v) {
        return new TreeSinkOptions(io, delete, v, maxReported, listener, writerThreads, dryRun);
    }

    public TreeSinkOptions withMaxReported(int v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, v, listener, writerThreads, dryRun);
    }

    public TreeSinkOptions withListener(TreeListener v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, maxReported, v, writerThreads, dryRun);
    }

    public TreeSinkOptions withWriterThreads(int v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, maxReported, listener, v, dryRun);
    }

    public TreeSinkOptions withDryRun(boolean v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, maxReported, listener, writerThreads, v);
    }
}
