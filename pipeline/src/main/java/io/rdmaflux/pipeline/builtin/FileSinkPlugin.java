package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.nio.file.Path;
import java.util.List;

/** Sink {@code file}: a file written under a temporary name and renamed when complete. */
public final class FileSinkPlugin implements SinkPlugin {

    static final OptionSpec<Path> PATH = OptionSpec.required("path", ValueType.path(),
            "The file to write; replaced only when the whole stream arrived (special files are written in place).");
    static final OptionSpec<Boolean> FSYNC = OptionSpec.optional("fsync", ValueType.bool(), false,
            "Sync the file and its directory to disk before reporting success.");
    static final OptionSpec<Boolean> APPEND = OptionSpec.optional("append", ValueType.bool(), false,
            "Append to the file (creating it) instead of replacing it, as >>; on failure it is cut back to its old "
                    + "length.");

    @Override
    public String name() {
        return "file";
    }

    @Override
    public String description() {
        return "Writes a file: a temporary file renamed when complete, removed on failure.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(PATH, FSYNC, APPEND);
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        SinkOptions options = context.sinkOptions().withFsync(values.get(FSYNC));
        return PipelineSink.of(values.get(APPEND) ? FileSink.appending(values.get(PATH), options)
                : FileSink.of(values.get(PATH), options));
    }
}
