package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.Source;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;

/** Source {@code empty}: no bytes, then the end: an empty file with a file sink, as {@code truncate -s 0}. */
public final class EmptySourcePlugin implements SourcePlugin {

    private static final Source EMPTY = new Source() {
        @Override
        public Flux<Chunk> open() {
            return Flux.empty();
        }

        @Override
        public Optional<String> name() {
            return Optional.empty();
        }

        @Override
        public OptionalLong size() {
            return OptionalLong.of(0);
        }

        @Override
        public String describe() {
            return "nothing";
        }
    };

    @Override
    public String name() {
        return "empty";
    }

    @Override
    public String description() {
        return "An empty stream: creates an empty file with a file sink (or leaves an appended one as it was).";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        return PipelineSource.of(EMPTY);
    }
}
