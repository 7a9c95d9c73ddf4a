package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.connector.SourceOptions;

/**
 * What a plugin may need from the pipeline it is part of when it makes its source or sink.
 *
 * @param chunkSize the chunk size sources should read: the stages' block size, which fits one
 *                  of the sink's frames (see {@link io.rdmaflux.pipeline.Pipeline#blockSize()})
 * @param codecs    the codec stages this process knows, plugin jars included
 */
public record PluginContext(int chunkSize, CodecRegistry codecs) {

    /** Default source options with {@link #chunkSize()}. */
    public SourceOptions sourceOptions() {
        return SourceOptions.defaults().withChunkSize(chunkSize);
    }

    /** Default sink options. */
    public SinkOptions sinkOptions() {
        return SinkOptions.defaults();
    }
}
