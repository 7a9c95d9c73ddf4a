package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One stream arriving at a receiver: its metadata, its session, and its bytes.
 *
 * <p>The bytes come in three forms; subscribe to exactly one of them, once:
 * <ul>
 * <li>{@link #receive()}: copies on the heap that the caller owns. Safe with any operator
 *     ({@code publishOn}, {@code collectList}, {@code buffer}...); one copy per frame.</li>
 * <li>{@link #aggregate(int)}: the whole stream in one buffer, up to a bound the caller sets.</li>
 * <li>{@link #receiveChunks()}: the receive slots themselves, as leases the caller releases; no
 *     copy, for consumers that move bytes on (file sinks, codec stages).</li>
 * </ul>
 *
 * <p>Each form completes only after the sender's END frame has been checked against what arrived
 * (byte count and CRC32C); a stream cut short, corrupted or failed on the other side ends with a
 * {@link io.rdmaflux.error.RdmaFluxException} instead. Demand drives everything: each released
 * lease frees a receive slot, and freed slots go back to the sender as credits.
 */
public interface InboundStream {

    /** What the sender said about this stream (codec chain, name, size). */
    StreamMetadata metadata();

    /** The authenticated session, including the nonces codec stages derive keys from. */
    Session session();

    /**
     * The stream's bytes, each frame as a heap buffer of its own that the caller owns: keep it,
     * hand it to another thread, collect it. Each frame's receive slot is freed as soon as it
     * is copied, so the sender is held back by this Flux's demand alone: a consumer that
     * requests without bound ({@code collectList}) holds the whole stream in memory. Use
     * {@link #aggregate(int)} to collect with a bound, {@link #receiveChunks()} to avoid the copy.
     */
    default Flux<ByteBuffer> receive() {
        return receiveChunks().map(InboundCopies::copyAndRelease);
    }

    /**
     * The whole stream in one heap buffer (position 0, limit the stream's length), emitted once
     * the stream has completed. A stream longer than {@code maxBytes} fails the Mono as soon as
     * it grows past the bound, with a {@link io.rdmaflux.error.RdmaFluxException} of code
     * {@link io.rdmaflux.error.ErrorCode#SINK_FAILED} that names it; memory never exceeds
     * about {@code maxBytes}.
     *
     * @param maxBytes the longest stream accepted, at least 0
     * @throws IllegalArgumentException when {@code maxBytes} is negative
     */
    default Mono<ByteBuffer> aggregate(int maxBytes) {
        Check.atLeast(maxBytes, 0, "maxBytes");
        return Mono.defer(() -> {
            InboundCopies.Aggregate all = new InboundCopies.Aggregate(maxBytes);
            return receiveChunks().doOnNext(all::add).then(Mono.fromCallable(all::result));
        });
    }

    /**
     * The stream's bytes as leases on the receive slots, with no copy: release each chunk exactly
     * once, from any thread, when done with it; holding a chunk holds its slot, and with it one of
     * the sender's credits. Chunks still queued inside this Flux when its subscriber cancels or
     * fails are released by the Flux. Operators added after it do not see that release hook:
     * those that may drop elements on cancel or error ({@code publishOn}, {@code concatMap},
     * {@code buffer}...) must be followed by
     * {@code .doOnDiscard(Chunk.class, Chunk::releaseQuietly)}, as the connectors do.
     */
    Flux<Chunk> receiveChunks();
}
