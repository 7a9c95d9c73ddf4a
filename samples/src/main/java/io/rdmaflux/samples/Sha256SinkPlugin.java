package io.rdmaflux.samples;

import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.nio.file.Path;
import java.util.List;

/**
 * Sink {@code sha256} for pipeline files: {@link Sha256Sink} described for {@code rdflux}. It is
 * listed in {@code META-INF/services/io.rdmaflux.pipeline.plugin.SinkPlugin} of this jar; put the
 * jar in a plugin directory and
 *
 * <pre>
 *   sink: {type: sha256}              # or {type: sha256, output: ~/digest.txt}
 * </pre>
 * works in a pipeline, and {@code rdflux plugins --plugins DIR} lists it with its option.
 */
public final class Sha256SinkPlugin implements SinkPlugin {

    static final OptionSpec<Path> OUTPUT = OptionSpec.optional("output", ValueType.path(), null,
            "Write the digest line to this file instead of standard output.");

    @Override
    public String name() {
        return "sha256";
    }

    @Override
    public String description() {
        return "Prints the stream's SHA-256, as sha256sum does, and keeps nothing else.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(OUTPUT);
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        Path output = values.get(OUTPUT);
        return PipelineSink.of(output == null ? Sha256Sink.toStdout() : Sha256Sink.toFile(output));
    }
}
