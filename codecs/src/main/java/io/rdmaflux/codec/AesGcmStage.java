package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.Plural;
import java.util.function.Function;
import javax.crypto.spec.SecretKeySpec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * AES-256-GCM ({@code aes-256-gcm:1}) through Apache Commons Crypto, which runs OpenSSL where its
 * binding loads and the JDK's cipher otherwise; {@link #provider()} says which. The two write the
 * same records, so either side may run either.
 *
 * <p><b>Keys and nonces.</b> The stream key is HKDF-SHA256(shared key, salt = session salt
 * (sender nonce || receiver nonce), info = {@value #INFO}), 32 bytes. Each record's 96-bit
 * nonce is 4 zero bytes followed by the record's sequence number (u64, from 0). Since the salt
 * is fresh for every connection, a (key, nonce) pair is never used twice.
 *
 * <p><b>Record format</b>, version 1 (big-endian):
 * <pre>
 *   u8  flags     bit 0: END (the last record of the stream; its plaintext is empty)
 *   u64 sequence  0, 1, 2, ... in stream order
 *   u32 length    bytes that follow: ciphertext and the 16-byte tag
 *   ... ciphertext || tag
 * </pre>
 * The 13 header bytes are the GCM additional authenticated data. A data record carries one
 * non-empty block; after the last one the encoder always writes an END record, so an empty
 * stream is one END record.
 *
 * <p><b>Checks on receive.</b> Records must arrive with sequence numbers 0, 1, 2, ...; the
 * nonce is computed from the expected number, not read from the wire. Each record is verified
 * (tag) before its plaintext is emitted. After END nothing may follow, and a stream that ends
 * without END fails. A flipped bit, a dropped, reordered, replayed or truncated record thus all
 * end the stream with a CODEC {@link RdmaFluxException}.
 *
 * <p>This class is the stage: the stream of records. {@code AesGcmRecords} seals and opens one
 * record, {@code AesGcmProvider} chooses the implementation, {@code AesWarmUp} warms the JDK's.
 */
public final class AesGcmStage implements CodecStage {

    public static final String NAME = "aes-256-gcm";
    public static final int VERSION = 1;
    /** HKDF info label for the stream key. */
    public static final String INFO = "rdma-flux aes-256-gcm v1 stream key";
    public static final int HEADER = 13;
    public static final int TAG = 16;

    private final Mono<AesGcmProvider> provider;

    /** The stage with this process's implementation (what {@link #provider()} describes). */
    public AesGcmStage() {
        this(AesGcmProvider.ready());
    }

    /** The stage with a given implementation, for tests that mix them. */
    AesGcmStage(AesGcmProvider provider) {
        this(Mono.just(provider));
    }

    private AesGcmStage(Mono<AesGcmProvider> provider) {
        this.provider = provider;
    }

    /** The spec. */
    public static CodecSpec spec() {
        return CodecSpec.of(NAME, VERSION);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public boolean requiresKey() {
        return true;
    }

    @Override
    public int recordOverhead() {
        return HEADER + TAG;
    }

    /**
     * Which implementation runs, in one line, for {@code -v} and {@code rdflux doctor}. Loads it
     * on first use, which extracts native libraries: call it where blocking is allowed, or use
     * {@link #describe()}.
     */
    public static String provider() {
        return AesGcmProvider.get().description();
    }

    /** {@link #provider()} without blocking the caller: loads on a thread that may block, the first time. */
    public static Mono<String> describe() {
        return AesGcmProvider.ready().map(AesGcmProvider::description);
    }

    /** Whether OpenSSL runs (false: the JDK's cipher through Commons Crypto). Loads like {@link #provider()}. */
    public static boolean isOpenSsl() {
        return AesGcmProvider.get().isOpenSsl();
    }

    /**
     * Starts, in the background, what gets AES-GCM up to speed before data arrives, and returns at
     * once: with the JDK's cipher, a JIT warm-up on a daemon thread of its own (about 0.2 to 0.6 s
     * of one core, once per process); with OpenSSL, only the loading. The stages start it when a
     * stream is set up; tools that know early that they will encrypt may start it sooner.
     */
    public static void warmUp() {
        AesGcmProvider.ready().subscribe(AesWarmUp::startIfNeeded, e -> { });
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecSpec spec, CodecContext ctx) {
        SecretKeySpec key = AesGcmRecords.streamKey(ctx);
        return in -> provider.flatMapMany(p -> {
            AesWarmUp.startIfNeeded(p);
            AesGcmRecords records = new AesGcmRecords(key, p, ctx.allocator());
            long[] sealed = new long[1];
            return ChunkFlux.mapOrderedIndexed(ChunkFlux.split(in, ctx.splitSize()), records::seal,
                            ctx.scheduler(), ctx.parallelism())
                    .doOnNext(c -> sealed[0]++)
                    .concatWith(Mono.fromCallable(() -> records.sealEnd(sealed[0])));
        }).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecSpec spec, CodecContext ctx) {
        SecretKeySpec key = AesGcmRecords.streamKey(ctx);
        return in -> provider.flatMapMany(p -> {
            AesWarmUp.startIfNeeded(p);
            AesGcmRecords records = new AesGcmRecords(key, p, ctx.allocator());
            long[] opened = new long[1];
            boolean[] ended = new boolean[1];
            return ChunkFlux.mapOrderedIndexed(RecordAssembler.records(in, AesGcmRecords.FORMAT, NAME), records::open,
                            ctx.scheduler(), ctx.parallelism())
                    .<Chunk>handle((c, sink) -> {
                        opened[0]++;
                        if (ended[0]) {
                            c.releaseQuietly();
                            sink.error(new RdmaFluxException(ErrorCode.CODEC,
                                    "aes-256-gcm: data after the end of the encrypted stream"));
                        } else if (c.remaining() == 0) {
                            // Only the verified END record opens to nothing (an empty data record is refused).
                            ended[0] = true;
                            c.release();
                        } else {
                            sink.next(c);
                        }
                    })
                    .concatWith(Mono.defer(() -> ended[0] ? Mono.empty()
                            : Mono.error(new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: encrypted stream truncated "
                                    + "(its end mark is missing after " + Plural.count(opened[0], "record") + ")"))));
        }).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }
}
