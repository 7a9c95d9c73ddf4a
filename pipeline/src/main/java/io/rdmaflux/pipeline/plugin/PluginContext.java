package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.connector.SourceOptions;
import java.net.InetSocketAddress;
import reactor.core.publisher.Mono;

/**
 * What a plugin may need from the pipeline it is part of when it makes its source or sink.
 *
 * @param chunkSize the chunk size sources should read: the stages' block size, which fits one
 *                  of the sink's frames (see {@link io.rdmaflux.pipeline.Pipeline#blockSize()})
 * @param codecs    the codec stages this process knows, plugin jars included
 * @param sendTo    where a {@code send} sink connects instead of its host and port, once whoever
 *                  runs the pipeline knows it (a coordinator tells {@code rdflux agent} with a
 *                  {@code connect} message); null: at its host and port, as in {@code rdflux run}
 * @param process   the environment and stderr of the commands the pipeline starts
 */
public record PluginContext(int chunkSize, CodecRegistry codecs, Mono<InetSocketAddress> sendTo,
                            ProcessContext process) {

    public PluginContext {
        java.util.Objects.requireNonNull(process, "process");
    }

    /** A context in which every address is in the configuration. */
    public PluginContext(int chunkSize, CodecRegistry codecs) {
        this(chunkSize, codecs, null);
    }

    /** A context whose commands run in this process's environment. */
    public PluginContext(int chunkSize, CodecRegistry codecs, Mono<InetSocketAddress> sendTo) {
        this(chunkSize, codecs, sendTo, ProcessContext.inherited());
    }

    /** Default source options with {@link #chunkSize()}. */
    public SourceOptions sourceOptions() {
        return SourceOptions.defaults().withChunkSize(chunkSize);
    }

    /** Default sink options. */
    public SinkOptions sinkOptions() {
        return SinkOptions.defaults();
    }
}
