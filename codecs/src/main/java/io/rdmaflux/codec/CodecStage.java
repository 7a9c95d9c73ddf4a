package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.util.function.Function;
import reactor.core.publisher.Flux;

/**
 * A named, versioned transformation of a chunk stream: an encoder for the sending side and its
 * inverse, a decoder, for the receiving side. Implementations are found with
 * {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/io.rdmaflux.codec.CodecStage} and give it a public no-argument
 * constructor. A stage object is a stateless factory; per-stream state lives in the functions
 * it returns, which are applied once per stream.
 *
 * <p><b>Contract of the returned functions</b> (the test class {@code CodecStageContract} in
 * this module's test jar checks it; every stage's test extends it, samples/ shows a custom
 * stage that follows it):
 * <ul>
 *   <li><b>Order.</b> Output bytes keep the order of input bytes.</li>
 *   <li><b>Ownership.</b> Each input {@link Chunk} is a lease the function must release exactly
 *       once, also on error and cancel; each output chunk is a lease handed downstream.
 *       Operators that may drop elements need {@code doOnDiscard(Chunk.class, Chunk::releaseQuietly)}
 *       downstream of them.</li>
 *   <li><b>Chunk boundaries do not survive the channel.</b> The channel splits chunks larger
 *       than a frame, and a receiver sees frame-sized pieces. A decoder must therefore accept
 *       its encoder's output re-cut at arbitrary byte positions. Stages whose output is a
 *       sequence of records frame each record with a length header and reassemble with
 *       {@link RecordAssembler}.</li>
 *   <li><b>Bounded memory.</b> Small, explicit prefetch and concurrency.</li>
 *   <li><b>Errors.</b> Corrupt, tampered or undecodable input ends the stream with
 *       {@code new RdmaFluxException(ErrorCode.CODEC, "one clear line")}; nothing unverified is
 *       emitted downstream.</li>
 * </ul>
 */
public interface CodecStage {

    /** The name in the chain string, such as {@code zstd}; lower case letters, digits and '-'. */
    String name();

    /** The format version this stage writes. */
    int version();

    /** Whether this stage can decode streams written in {@code version}; by default only its own. */
    default boolean supportsVersion(int version) {
        return version == version();
    }

    /** Whether the stage needs {@link CodecContext#key()} (encryption stages do). */
    default boolean requiresKey() {
        return false;
    }

    /**
     * Most bytes one encoded record adds to the chunk it encodes; the chain subtracts the sum from
     * the frame size to pick a block size whose records fit one frame. Stages that do not frame
     * records return 0.
     */
    default int recordOverhead() {
        return 0;
    }

    /** Checks the parameters of a spec before any data moves; throws CODEC RdmaFluxException if bad. */
    default void validate(CodecSpec spec) {
    }

    /**
     * The spec to announce when this stage's input chunks are at most {@code largestInput} bytes
     * ({@link CodecChain#forFrameSize} asks): a stage whose decoder could be made to allocate
     * more than the encoder ever wrote (a decompressor) announces the bound in a parameter and
     * holds its decoder to it. By default the spec is announced unchanged.
     */
    default CodecSpec sized(CodecSpec spec, int largestInput) {
        return spec;
    }

    /**
     * The sending-side transformation for one stream. This and {@link #decoder} only assemble
     * operators and must not block: a receiver builds its decoder where the stream arrives, on a
     * transport's event loop. Work that may block (loading native code) belongs in the returned
     * Flux, on a thread that may block ({@code subscribeOn(Schedulers.boundedElastic())}).
     */
    Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecSpec spec, CodecContext context);

    /** The receiving-side transformation for one stream: the inverse of {@link #encoder}. */
    Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecSpec spec, CodecContext context);
}
