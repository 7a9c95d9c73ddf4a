package io.rdmaflux.pipeline;

import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.Source;
import java.util.Objects;
import reactor.core.publisher.Mono;

/** A {@link Source} as the beginning of a pipeline. */
final class ConnectorSource implements PipelineSource {

    private final Source source;

    ConnectorSource(Source source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    @Override
    public Mono<SinkResult> open(Downstream downstream) {
        return Mono.defer(() -> downstream.accept(SourceStream.of(source.open(), source.metadata())));
    }

    @Override
    public String describe() {
        return source.describe();
    }

    @Override
    public String toString() {
        return "PipelineSource[" + source + "]";
    }
}
