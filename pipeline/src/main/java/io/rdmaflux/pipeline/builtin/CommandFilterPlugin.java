package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.CommandFilter;
import io.rdmaflux.connector.Filter;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.FilterPlugin;
import io.rdmaflux.pipeline.plugin.PluginContext;
import java.util.List;

/** Filter {@code command}: the stream through a command's standard input and output, as in a shell pipe. */
public final class CommandFilterPlugin implements FilterPlugin {

    @Override
    public String name() {
        return "command";
    }

    @Override
    public String description() {
        return "Runs the stream through a command (its stdin to its stdout); it sees end of input only after the "
                + "input's verified end, and its exit status is part of the stream.";
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
    public Filter create(OptionValues values, PluginContext context) {
        return CommandSettings.command(values, CommandFilter::shell, CommandFilter::of)
                .withOptions(CommandSettings.options(values, context.process()))
                .withOptions(context.sourceOptions())
                .withOptions(context.sinkOptions());
    }
}
