package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.StdoutSink;
import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.util.List;

/** Sink {@code stdout}: the process's standard output. */
public final class StdoutSinkPlugin implements SinkPlugin {

    @Override
    public String name() {
        return "stdout";
    }

    @Override
    public String description() {
        return "Writes standard output (never closed; a reader that goes away fails the stream).";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        return PipelineSink.of(StdoutSink.create(context.sinkOptions()));
    }
}
