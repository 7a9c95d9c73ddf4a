package io.rdmaflux.pipeline;

import java.net.InetSocketAddress;

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
     * Data is about to flow: the sender's peer authenticated, or the file opened. The metrics are
     * live from now on; {@link PipelineMetrics#expectedBytes()} is known if it ever will be.
     */
    default void onStart(PipelineMetrics metrics) {
    }

    /** The source produced {@code bytes} more bytes (one chunk). */
    default void onSourceBytes(long bytes) {
    }
}
