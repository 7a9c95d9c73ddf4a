package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.util.Objects;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;

/**
 * The stream a {@link PipelineSource} hands to {@link Downstream#accept}.
 *
 * @param data     the plain bytes, chunk leases the subscriber releases (see {@link io.rdmaflux.connector.Source});
 *                 subscribed once
 * @param metadata what is known about the stream: name, size (any codec chain attribute is
 *                 dropped: the data is plain)
 * @param received bytes the source took in before its own decoding (for a channel, what came
 *                 over the wire), or null when that is the data itself
 */
public record SourceStream(Flux<Chunk> data, StreamMetadata metadata, LongSupplier received) {

    public SourceStream {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(metadata, "metadata");
    }

    /** A stream whose bytes are read as they are. */
    public static SourceStream of(Flux<Chunk> data, StreamMetadata metadata) {
        return new SourceStream(data, metadata, null);
    }
}
