package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.SinkOptions;
import java.util.Objects;

/**
 * How a {@link TreeSink} writes. Immutable; each {@code withX} returns a copy.
 *
 * <p><b>Memory bound.</b> The sink holds at most {@code io.prefetch()} received chunks, one
 * open file per file the sender reads at once (at most {@code maxOpenFiles}), and for the whole
 * tree: the paths of its directories (their modes and times are set last), of the files that
 * have hard links, and with {@code delete}, the names of every entry.
 *
 * @param io           prefetch, fsync (each file and the directories, before success), scheduler
 * @param delete       whether entries of the destination that the source does not have are
 *                     removed at the end, inside the directories the stream lists; never after
 *                     any failure. Default false
 * @param maxOpenFiles the most files a stream may have open at once; a stream that opens more is
 *                     refused. Default 128 (a tree source has at most 65)
 * @param maxReported  the most failures and warnings listed by name in the report (all are
 *                     counted); default 1000
 * @param listener     progress, called on the writing thread
 */
public record TreeSinkOptions(SinkOptions io, boolean delete, int maxOpenFiles, int maxReported,
                              TreeListener listener) {

    /** The defaults described above. */
    public static TreeSinkOptions defaults() {
        return new TreeSinkOptions(SinkOptions.defaults(), false, 128, 1000, TreeListener.NONE);
    }

    public TreeSinkOptions {
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(listener, "listener");
        if (maxOpenFiles <= 0 || maxReported < 0) {
            throw new IllegalArgumentException("maxOpenFiles must be positive and maxReported not negative");
        }
    }

    public TreeSinkOptions withIo(SinkOptions v) {
        return new TreeSinkOptions(v, delete, maxOpenFiles, maxReported, listener);
    }

    public TreeSinkOptions withDelete(boolean v) {
        return new TreeSinkOptions(io, v, maxOpenFiles, maxReported, listener);
    }

    public TreeSinkOptions withMaxOpenFiles(int v) {
        return new TreeSinkOptions(io, delete, v, maxReported, listener);
    }

    public TreeSinkOptions withMaxReported(int v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, v, listener);
    }

    public TreeSinkOptions withListener(TreeListener v) {
        return new TreeSinkOptions(io, delete, maxOpenFiles, maxReported, v);
    }
}
