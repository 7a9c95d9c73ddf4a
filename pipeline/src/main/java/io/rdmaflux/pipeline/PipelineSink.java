package io.rdmaflux.pipeline;

import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import reactor.core.publisher.Mono;

/**
 * The end of a pipeline. A plain {@link Sink} (a file, standard output, a command) is adapted
 * with {@link #of(Sink)} and gets the stream encoded by the pipeline's stages with a keyless
 * {@link io.rdmaflux.codec.CodecContext}; a sink that has a session of its own, such as the
 * channel's sending end ({@link SendSink}), implements this directly and asks
 * {@link Upstream#data} for the stream encoded with the session's context.
 *
 * <p>The Mono completes when the bytes are durably handed over (see {@link Sink}); on error or
 * cancel the sink cleans up (a file sink removes its partial file).
 */
public interface PipelineSink {

    /** Writes the stream {@code upstream} gives; subscribe to {@link Upstream#data} once. */
    Mono<SinkResult> write(Upstream upstream);

    /** What this sink writes to, for messages and metrics. */
    String describe();

    /**
     * Whether this sink gives the stages a per-session key (the shared key and the session's
     * nonces), which stages such as aes-256-gcm need. Pipelines with such a stage and a sink
     * without one are refused before they start.
     */
    default boolean providesSessionKey() {
        return false;
    }

    /**
     * The largest frame the sink sends, when it frames the stream (a channel), or 0: the
     * stages' blocks are sized so that each record fits one frame.
     */
    default int frameSize() {
        return 0;
    }

    /** A plain sink, given the stream encoded with a keyless context and the source's metadata. */
    static PipelineSink of(Sink sink) {
        return new ConnectorSink(sink);
    }
}
