package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.pipeline.Downstream;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.SourceStream;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A test plugin with list options, loaded only through a plugin directory the tests make (it
 * is not in this module's services files, so the built-in reference does not list it).
 */
public final class ListSourcePlugin implements SourcePlugin {

    static final OptionSpec<List<String>> WORDS = OptionSpec.required("words", ValueType.list(ValueType.string()),
            "The words the stream carries, one per line.");
    static final OptionSpec<List<Long>> SIZES = OptionSpec.optional("sizes", ValueType.list(ValueType.size(0, 1 << 20)),
            List.of(), "Sizes, to check list items of another type.");

    @Override
    public String name() {
        return "words";
    }

    @Override
    public String description() {
        return "Test source: its words.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(WORDS, SIZES);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        byte[] text = (String.join("\n", values.get(WORDS)) + "\n").getBytes(StandardCharsets.UTF_8);
        return new PipelineSource() {
            @Override
            public Mono<SinkResult> open(Downstream downstream) {
                return downstream.accept(SourceStream.of(Flux.defer(() -> Flux.just(Chunk.wrap(ByteBuffer.wrap(text)))),
                        StreamMetadata.empty()));
            }

            @Override
            public String describe() {
                return "words";
            }
        };
    }
}
