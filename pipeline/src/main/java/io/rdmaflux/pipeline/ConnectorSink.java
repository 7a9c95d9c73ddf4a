package io.rdmaflux.pipeline;

import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import java.util.Objects;
import reactor.core.publisher.Mono;

/** A {@link Sink} as the end of a pipeline: the stages run with a keyless context. */
final class ConnectorSink implements PipelineSink {

    private final Sink sink;

    ConnectorSink(Sink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    @Override
    public Mono<SinkResult> write(Upstream upstream) {
        return Mono.defer(() -> sink.write(upstream.data(CodecContext.keyless()), upstream.metadata()));
    }

    @Override
    public String describe() {
        return sink.describe();
    }

    @Override
    public String toString() {
        return "PipelineSink[" + sink + "]";
    }
}
