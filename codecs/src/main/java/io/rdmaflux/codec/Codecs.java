package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.function.Function;
import reactor.core.publisher.Flux;

/**
 * The codec stages as Reactor operators, for services that want them without a channel:
 *
 * <pre>{@code
 * byte[] salt = Codecs.newSalt();                        // unique per stream; store or send it along
 * Flux<Chunk> sealed = chunks.transform(Codecs.zstd(1)).transform(Codecs.aesGcmEncrypt(key, salt));
 * Flux<Chunk> plain  = sealed.transform(Codecs.aesGcmDecrypt(key, salt)).transform(Codecs.unzstd());
 *
 * // plain ByteBuffers in and out (outputs are copied to heap buffers the caller owns):
 * Flux<ByteBuffer> packed = buffers.transform(Codecs.onBuffers(Codecs.zstd(3)));
 * }</pre>
 *
 * The chunk operators follow the {@link CodecStage} contract: they own their input leases and
 * emit new ones, which the subscriber must release. Their output is self-delimiting and may be
 * re-cut anywhere before decoding (stored in a file, sent over a socket).
 */
public final class Codecs {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Codecs() {
    }

    /** Parallel zstd compression at {@code level} (1 is the project default). */
    public static Function<Flux<Chunk>, Flux<Chunk>> zstd(int level) {
        return zstd(level, CodecContext.keyless());
    }

    /** Parallel zstd compression at {@code level}, with the workers and block size of {@code context}. */
    public static Function<Flux<Chunk>, Flux<Chunk>> zstd(int level, CodecContext context) {
        return new ZstdStage().encoder(ZstdStage.spec(level), context);
    }

    /** Parallel zstd decompression of what {@link #zstd(int)} wrote. */
    public static Function<Flux<Chunk>, Flux<Chunk>> unzstd() {
        return unzstd(CodecContext.keyless());
    }

    public static Function<Flux<Chunk>, Flux<Chunk>> unzstd(CodecContext context) {
        return new ZstdStage().decoder(ZstdStage.spec(ZstdStage.DEFAULT_LEVEL), context);
    }

    /**
     * AES-256-GCM encryption with a stream key derived from {@code key} and {@code salt}.
     * <b>Never encrypt two streams with the same key and salt</b>: nonces count from zero in
     * every stream. Use {@link #newSalt()} for each stream.
     */
    public static Function<Flux<Chunk>, Flux<Chunk>> aesGcmEncrypt(byte[] key, byte[] salt) {
        return aesGcmEncrypt(CodecContext.of(key, salt));
    }

    public static Function<Flux<Chunk>, Flux<Chunk>> aesGcmEncrypt(CodecContext context) {
        return new AesGcmStage().encoder(AesGcmStage.spec(), context);
    }

    /** Verifies and decrypts what {@link #aesGcmEncrypt} wrote with the same key and salt. */
    public static Function<Flux<Chunk>, Flux<Chunk>> aesGcmDecrypt(byte[] key, byte[] salt) {
        return aesGcmDecrypt(CodecContext.of(key, salt));
    }

    public static Function<Flux<Chunk>, Flux<Chunk>> aesGcmDecrypt(CodecContext context) {
        return new AesGcmStage().decoder(AesGcmStage.spec(), context);
    }

    /** 32 fresh random bytes, a salt for one stream. */
    public static byte[] newSalt() {
        byte[] s = new byte[32];
        RANDOM.nextBytes(s);
        return s;
    }

    /**
     * Adapts a chunk operator to plain buffers: each input buffer is wrapped (the operator reads
     * it, possibly on another thread, so do not modify it afterwards) and each output is copied
     * to a heap buffer that the subscriber owns, its lease released at once.
     */
    public static Function<Flux<ByteBuffer>, Flux<ByteBuffer>> onBuffers(Function<Flux<Chunk>, Flux<Chunk>> op) {
        return in -> op.apply(in.map(Chunk::wrap)).map(c -> {
            try {
                ByteBuffer b = c.buffer();
                ByteBuffer copy = ByteBuffer.allocate(b.remaining());
                copy.put(b.duplicate()).flip();
                return copy;
            } finally {
                c.release();
            }
        });
    }
}
