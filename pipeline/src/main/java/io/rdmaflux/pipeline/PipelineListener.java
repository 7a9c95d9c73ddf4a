package io.rdmaflux.pipeline;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * What a running pipeline tells its caller, for progress lines, logs, or a coordinator that
 * needs a receiver's port. Methods are called on the pipeline's threads (event loops among
 * them): return quickly, never block.
 */
public interface PipelineListener {

    /** A listener that ignores everything. */
    PipelineListener NONE = new PipelineListener() { };

    /**
     * A receiving source is listening, on this address (with the real port when 0 was asked
     * for). Called before any sender can arrive.
     */
    default void onListening(InetSocketAddress address) {
    }

    /**
     * {@link #onListening(InetSocketAddress)} with the transports the receiver accepts ("tcp",
     * "rdma"); receiving sources call this one. By default it calls the other.
     */
    default void onListening(InetSocketAddress address, List<String> transports) {
        onListening(address);
    }

    /**
     * Data is about to flow: the sender's peer authenticated, or the file opened. The metrics are
     * live from now on; {@link PipelineMetrics#expectedBytes()} is known if it ever will be.
     */
    default void onStart(PipelineMetrics metrics) {
    }

    /** The source produced {@code bytes} more bytes (one chunk). */
    default void onSourceBytes(long bytes) {
    }

    /**
     * The source passed {@code bytes} that travel as a hole rather than as data (a sparse
     * file's zeros in a tree), or that a resumed file's destination kept from a cut copy: done,
     * though few or no bytes went on the wire. A display that counts a
     * file's length adds them to {@link #onSourceBytes}'s.
     */
    default void onSourceHole(long bytes) {
    }

    /**
     * One file of a stream that carries several (a directory tree) is complete at the sink: in
     * place and verified. {@code bytes} is its content length (a file that was already current,
     * in a sync, is {@link #onFileKept} instead). Sinks that write such streams call it, so that
     * a progress display can count files; the totals, when the source counted them, are in the
     * stream's {@linkplain PipelineMetrics#metadata() metadata}.
     */
    default void onFile(long bytes) {
    }

    /**
     * One file of such a stream was already current at the sink (a sync): kept as it was, no
     * data sent. By default {@link #onFile} with 0 bytes, since it is complete too.
     */
    default void onFileKept() {
        onFile(0);
    }

    /**
     * A second name for a file that came earlier in such a stream (a hard link) is in place at
     * the sink: a link, not a file, to a display that counts files.
     */
    default void onLink() {
    }

    /** What happened to an entry of a tree at the sink, as {@link #onTreeEntry} names it. */
    enum TreeChange {
        /** Written (or, in a dry run, would be): a file or a link. */
        COPIED,
        /** Removed because the source does not have it (delete), or would be in a dry run. */
        DELETED,
        /** Current already (a sync): kept as it was. */
        UNCHANGED
    }

    /**
     * A file or link of a tree is in place, was kept, or was deleted, at the sink: {@code path}
     * relative to the copy (the file's own name for a copy of one file), as the sender named
     * it. Called on the sink's writing thread: a listener that blocks here slows the sink down,
     * which is how a listener that streams names elsewhere holds none in memory.
     */
    default void onTreeEntry(String path, TreeChange change) {
    }
}
