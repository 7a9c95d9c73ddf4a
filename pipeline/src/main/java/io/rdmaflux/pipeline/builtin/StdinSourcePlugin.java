package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.StdinSource;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.util.List;

/** Source {@code stdin}: the process's standard input. */
public final class StdinSourcePlugin implements SourcePlugin {

    @Override
    public String name() {
        return "stdin";
    }

    @Override
    public String description() {
        return "Reads standard input to its end.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        return PipelineSource.of(StdinSource.create(context.sourceOptions()));
    }
}
