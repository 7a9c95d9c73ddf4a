package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.CommandSink;
import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.util.List;

/** Sink {@code command}: a command's standard input, closed only after the stream's verified end. */
public final class CommandSinkPlugin implements SinkPlugin {

    @Override
    public String name() {
        return "command";
    }

    @Override
    public String description() {
        return "Runs a command and writes the stream to its standard input; it sees end of input only after the "
                + "stream's verified end, and is killed on failure.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return CommandSettings.common();
    }

    @Override
    public void validate(OptionValues values) {
        CommandSettings.validate(values);
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        return PipelineSink.of(CommandSettings.command(values, CommandSink::shell, CommandSink::of)
                .withOptions(CommandSettings.options(values, context.process()))
                .withOptions(context.sinkOptions()));
    }
}
