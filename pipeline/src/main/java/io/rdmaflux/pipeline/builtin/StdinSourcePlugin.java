package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.PipeEnd;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.StdinSource;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.util.List;

/**
 * Source {@code stdin}: the process's standard input. When it is a pipe or a socket, its end is
 * passed on only after {@link PipeEnd#GRACE} ({@link PipeEnd}): an end caused by Ctrl-C killing
 * the producer must not reach the sink before the tool has seen the signal and failed or
 * cancelled the run.
 */
public final class StdinSourcePlugin implements SourcePlugin {

    @Override
    public String name() {
        return "stdin";
    }

    @Override
    public String description() {
        return "Reads standard input to its end (from a pipe, the end is confirmed after 250 ms without a signal).";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        Source stdin = StdinSource.create(context.sourceOptions());
        return PipelineSource.of(PipeEnd.stdinIsPipe() ? PipeEnd.held(stdin) : stdin);
    }
}
