package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.config.OptionValues;

/**
 * A sink plugin: makes the end of a pipeline from its options. Most wrap a
 * {@link io.rdmaflux.connector.Sink} with {@link PipelineSink#of}; see {@link SourcePlugin}.
 */
public interface SinkPlugin extends Plugin {

    /**
     * The sink these (validated) options describe. It may check the world and throw a
     * {@link io.rdmaflux.connector.ConnectorException}; it must not create anything yet.
     */
    PipelineSink create(OptionValues values, PluginContext context);

    /**
     * Whether the sinks this plugin makes give stages a per-session key
     * ({@link PipelineSink#providesSessionKey()}), known before any is made so that validation
     * can refuse a keyed stage before a sink without sessions.
     */
    default boolean providesSessionKey() {
        return false;
    }
}
