package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionValues;

/**
 * A source plugin: makes the beginning of a pipeline from its options. Most wrap a
 * {@link io.rdmaflux.connector.Source} with {@link PipelineSource#of}:
 *
 * <pre>{@code
 * public final class FileSourcePlugin implements SourcePlugin {
 *     static final OptionSpec<Path> PATH = OptionSpec.required("path", ValueType.path(), "the file to read");
 *     public String name() { return "file"; }
 *     public String description() { return "Reads a file."; }
 *     public List<OptionSpec<?>> options() { return List.of(PATH); }
 *     public PipelineSource create(OptionValues v, PluginContext c) {
 *         return PipelineSource.of(FileSource.of(v.get(PATH), c.sourceOptions()));
 *     }
 * }
 * }</pre>
 */
public interface SourcePlugin extends Plugin {

    /**
     * The source these (validated) options describe. It may check the world (a file that must
     * exist) and throw a {@link io.rdmaflux.connector.ConnectorException}; it must not open
     * anything: that happens when the pipeline runs.
     */
    PipelineSource create(OptionValues values, PluginContext context);
}
