package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.connector.Filter;
import io.rdmaflux.pipeline.config.OptionValues;

/**
 * A filter plugin: makes a {@link Filter} (a command in the middle of the stream, say) from its
 * options. Filters are listed under {@code filters} in a pipeline file and run, in order, on
 * the source's plain stream before the stages; see {@link SourcePlugin} for the pattern.
 */
public interface FilterPlugin extends Plugin {

    /**
     * The filter these (validated) options describe. It may check the world and throw a
     * {@link io.rdmaflux.connector.ConnectorException}; it must not start anything yet.
     */
    Filter create(OptionValues values, PluginContext context);
}
