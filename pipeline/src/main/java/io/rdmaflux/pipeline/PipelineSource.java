package io.rdmaflux.pipeline;

import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.Source;
import reactor.core.publisher.Mono;

/**
 * The beginning of a pipeline. A plain {@link Source} (a file, standard input, a command) is
 * adapted with {@link #of(Source)}; a source that has to wait for its stream, such as the
 * channel's receiving end ({@link ReceiveSource}), implements this directly.
 *
 * <p>The source opens its stream when the Mono returned by {@link #open} is subscribed, hands
 * it to {@link Downstream#accept} exactly once, and completes with the Mono that call returned
 * (the sink's result) once the stream is over on its side too: at once for a file, after the
 * sender has been told for a channel. Cancelling the Mono closes what the source opened.
 */
public interface PipelineSource {

    /** Opens the stream and runs it through {@code downstream}; see the class comment. */
    Mono<SinkResult> open(Downstream downstream);

    /** What this source reads, for messages and metrics: a path, "standard input", "receive :7691". */
    String describe();

    /** A plain source: the stream is {@code source.open()}, its metadata {@code source.metadata()}. */
    static PipelineSource of(Source source) {
        return new ConnectorSource(source);
    }
}
