package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.FileSource;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.nio.file.Path;
import java.util.List;

/** Source {@code file}: a file (or a FIFO, a device), read with large reads. */
public final class FileSourcePlugin implements SourcePlugin {

    static final OptionSpec<Path> PATH = OptionSpec.required("path", ValueType.path(),
            "The file to read: a regular file (its size is announced), or a FIFO or device read to its end.");

    @Override
    public String name() {
        return "file";
    }

    @Override
    public String description() {
        return "Reads a file.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(PATH);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        return PipelineSource.of(FileSource.of(values.get(PATH), context.sourceOptions()));
    }
}
