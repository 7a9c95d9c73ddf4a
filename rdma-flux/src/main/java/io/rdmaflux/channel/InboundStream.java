package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import reactor.core.publisher.Flux;

/**
 * One stream arriving at a receiver: its metadata, its session, and its bytes.
 *
 * <p>Subscribe to exactly one of {@link #receive()} or {@link #receiveChunks()}, once. The
 * stream completes only after the sender's END frame has been checked against what arrived
 * (byte count and CRC32C); a stream cut short, corrupted or failed on the other side ends with
 * a {@link io.rdmaflux.protocol.ProtocolException} instead. Demand drives everything: each
 * released buffer frees a receive slot, and freed slots go back to the sender as credits.
 */
public interface InboundStream {

    /** What the sender said about this stream (codec chain, name, size). */
    StreamMetadata metadata();

    /** The authenticated session, including the nonces codec stages derive keys from. */
    Session session();

    /**
     * The stream's bytes as plain buffers. <b>Each buffer is only valid during the
     * {@code onNext} call that delivers it</b>: it is recycled as soon as {@code onNext}
     * returns, as with reactor-netty's {@code receive()}. Copy what you need to keep, or use
     * {@link #receiveChunks()} to hold buffers across threads.
     */
    Flux<ByteBuffer> receive();

    /**
     * The stream's bytes as leases: release each chunk exactly once when done with it.
     * Chunks still queued inside the channel when the subscriber cancels or fails are released
     * by this Flux. Operators you add after it that may drop elements (publishOn, concatMap,
     * buffer...) must release what they drop: add
     * {@code .doOnDiscard(Chunk.class, Chunk::releaseQuietly)} after them, as the connectors do.
     */
    Flux<Chunk> receiveChunks();
}
