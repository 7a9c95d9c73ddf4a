package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.CommandSource;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Source {@code command}: a command's standard output, its exit status part of the stream. */
public final class CommandSourcePlugin implements SourcePlugin {

    static final OptionSpec<Path> INPUT = OptionSpec.optional("input", ValueType.path(), null,
            "A file for the command's standard input (default: /dev/null).");

    @Override
    public String name() {
        return "command";
    }

    @Override
    public String description() {
        return "Runs a command and reads its standard output; a non-zero exit status or a signal fails the stream.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        List<OptionSpec<?>> o = new ArrayList<>(CommandSettings.common());
        o.add(INPUT);
        return o;
    }

    @Override
    public void validate(OptionValues values) {
        CommandSettings.validate(values);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        CommandSource source = CommandSettings.command(values, CommandSource::shell, CommandSource::of)
                .withOptions(CommandSettings.options(values, context.process()))
                .withOptions(context.sourceOptions())
                .withInput(values.get(INPUT));
        return PipelineSource.of(source);
    }
}
