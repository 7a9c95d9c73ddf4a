package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.commons.crypto.Crypto;
import org.apache.commons.crypto.cipher.CryptoCipher;
import org.apache.commons.crypto.cipher.CryptoCipherFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * AES-256-GCM ({@code aes-256-gcm:1}) through Apache Commons Crypto, which uses OpenSSL when
 * its native binding loads and the JDK's cipher otherwise; {@link #provider()} says which.
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
 * end the stream with a CODEC {@link ProtocolException}.
 */
public final class AesGcmStage implements CodecStage {

    public static final String NAME = "aes-256-gcm";
    public static final int VERSION = 1;
    /** HKDF info label for the stream key. */
    public static final String INFO = "rdma-flux aes-256-gcm v1 stream key";
    public static final int HEADER = 13;
    public static final int TAG = 16;
    static final byte END = 1;

    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final ThreadLocal<CryptoCipher> CIPHERS = ThreadLocal.withInitial(AesGcmStage::newCipher);

    private static final RecordAssembler.Header RECORD_HEADER = new RecordAssembler.Header() {
        @Override
        public int length() {
            return HEADER;
        }

        @Override
        public int recordLength(ByteBuffer b, int offset) {
            int n = b.getInt(offset + 9);
            if (n < TAG || n > RecordAssembler.MAX_RECORD - HEADER) {
                throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: corrupt stream (record length " + n + ")");
            }
            return HEADER + n;
        }
    };

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

    /** Which implementation runs, in one line, for {@code -v} and {@code rdflux doctor}. */
    public static String provider() {
        return ProviderInfo.INSTANCE.description;
    }

    /** Whether the OpenSSL binding is in use (false: the JDK's cipher through Commons Crypto). */
    public static boolean isOpenSsl() {
        return ProviderInfo.INSTANCE.openSsl;
    }

    private static final java.util.concurrent.atomic.AtomicBoolean WARM = new java.util.concurrent.atomic.AtomicBoolean();
    private static final int WARM_UP_RECORDS = Integer.getInteger("rdflux.aes.warmup", 5000);

    /**
     * Gets the JDK's AES-GCM compiled with its intrinsics before real data arrives: until the JIT
     * has seen enough calls, GCM runs at about 90 MB/s instead of 2 to 3 GB/s per core, which
     * costs some 70 MiB of slow records per direction. Sealing and opening 5000 small records
     * gets there in about 0.6 s of one core (system property {@code rdflux.aes.warmup}: count, 0 for none). Runs once per process; later calls return at once.
     * The stages start it in the background when a stream is set up; tools may call it earlier.
     */
    public static void warmUp() {
        if (!WARM.compareAndSet(false, true)) {
            return;
        }
        SecretKeySpec k = new SecretKeySpec(new byte[32], "AES");
        ChunkAllocator alloc = ChunkAllocator.heap();
        ByteBuffer small = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < WARM_UP_RECORDS; i++) {
            Chunk sealed = seal(k, Numbered.of(Chunk.wrap(small.duplicate()), Long.MAX_VALUE - i), alloc);
            ByteBuffer copy = ByteBuffer.allocateDirect(sealed.remaining()).put(sealed.buffer().duplicate()).flip();
            sealed.release();
            open(k, Numbered.of(Chunk.wrap(copy), Long.MAX_VALUE - i), alloc).release();
        }
    }

    private static void warmUpInBackground() {
        if (Boolean.getBoolean("rdflux.aes.warmup.sync")) {
            warmUp();
            return;
        }
        if (!WARM.get()) {
            Thread t = new Thread(AesGcmStage::warmUp, "rdflux-aes-warmup");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The stream key derived from the context's key and salt. */
    static SecretKeySpec streamKey(CodecContext ctx) {
        // Commons Crypto loads its native code (extracting a file) when first asked for a
        // cipher: do that here, on the caller's thread, not on a non-blocking worker.
        provider();
        byte[] key = ctx.key();
        byte[] salt = ctx.salt();
        if (key == null || key.length == 0) {
            throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: no key given (the stream is encrypted)");
        }
        if (salt == null || salt.length < 16) {
            throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: a salt of at least 16 bytes is required");
        }
        return new SecretKeySpec(Hkdf.sha256(key, salt, INFO.getBytes(StandardCharsets.UTF_8), 32), "AES");
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecSpec spec, CodecContext ctx) {
        SecretKeySpec key = streamKey(ctx);
        warmUpInBackground();
        ChunkAllocator alloc = ctx.allocator();
        return in -> Flux.defer(() -> {
            AtomicLong next = new AtomicLong();
            Flux<Chunk> numbered = ChunkFlux.split(in, ctx.splitSize())
                    .map(c -> Numbered.of(c, next.getAndIncrement()));
            return ChunkFlux.mapOrdered(numbered, c -> seal(key, (Numbered) c, alloc), ctx.scheduler(), ctx.parallelism())
                    .concatWith(Mono.fromCallable(() -> sealEnd(key, next.get(), alloc)));
        }).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecSpec spec, CodecContext ctx) {
        SecretKeySpec key = streamKey(ctx);
        warmUpInBackground();
        ChunkAllocator alloc = ctx.allocator();
        return in -> Flux.defer(() -> {
            AtomicLong next = new AtomicLong();
            boolean[] ended = new boolean[1];
            Flux<Chunk> numbered = RecordAssembler.records(in, RECORD_HEADER, NAME)
                    .map(c -> Numbered.of(c, next.getAndIncrement()));
            return ChunkFlux.mapOrdered(numbered, c -> open(key, (Numbered) c, alloc), ctx.scheduler(), ctx.parallelism())
                    .<Chunk>handle((c, sink) -> {
                        if (ended[0]) {
                            c.releaseQuietly();
                            sink.error(new ProtocolException(ErrorCode.CODEC,
                                    "aes-256-gcm: data after the end of the encrypted stream"));
                        } else if (c instanceof EndMark) {
                            ended[0] = true;
                            c.release();
                        } else {
                            sink.next(c);
                        }
                    })
                    .concatWith(Mono.defer(() -> ended[0] ? Mono.empty()
                            : Mono.error(new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: encrypted stream truncated "
                                    + "(its end mark is missing after " + next.get() + " records)"))));
        }).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    private static byte[] nonce(long seq) {
        byte[] n = new byte[12];
        for (int i = 0; i < 8; i++) {
            n[4 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        return n;
    }

    private static byte[] header(byte flags, long seq, int length) {
        ByteBuffer h = ByteBuffer.allocate(HEADER);
        h.put(flags).putLong(seq).putInt(length);
        return h.array();
    }

    /** Encrypts one block into one record; releases the input. */
    static Chunk seal(SecretKeySpec key, Numbered in, ChunkAllocator alloc) {
        Chunk out = null;
        try {
            ByteBuffer src = in.buffer().duplicate();
            int n = src.remaining();
            out = alloc.allocate(HEADER + n + TAG);
            sealInto(key, (byte) 0, in.seq, src, out.buffer());
            Chunk result = out;
            out = null;
            return result;
        } finally {
            in.releaseQuietly();
            if (out != null) {
                out.releaseQuietly();
            }
        }
    }

    static Chunk sealEnd(SecretKeySpec key, long seq, ChunkAllocator alloc) {
        Chunk out = alloc.allocate(HEADER + TAG);
        try {
            sealInto(key, END, seq, ByteBuffer.allocate(0), out.buffer());
            return out;
        } catch (RuntimeException e) {
            out.releaseQuietly();
            throw e;
        }
    }

    private static void sealInto(SecretKeySpec key, byte flags, long seq, ByteBuffer src, ByteBuffer dst) {
        int n = src.remaining();
        byte[] header = header(flags, seq, n + TAG);
        dst.put(0, header);
        // Direct memory on both sides: the JDK's GCM intrinsics are only used there.
        ByteBuffer in = DirectScratch.direct(src, 0);
        ByteBuffer out = dst.isDirect() ? dst : DirectScratch.get(1, HEADER + n + TAG);
        out.limit(HEADER + n + TAG).position(HEADER);
        try {
            CryptoCipher cipher = CIPHERS.get();
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG * 8, nonce(seq)));
            cipher.updateAAD(header);
            int written = cipher.doFinal(in, out);
            if (written != n + TAG) {
                throw new IllegalStateException("cipher wrote " + written + " bytes, expected " + (n + TAG));
            }
        } catch (GeneralSecurityException e) {
            throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: encryption failed (" + e.getMessage() + ")", e);
        }
        if (out != dst) {
            out.flip().position(HEADER);
            dst.limit(HEADER + n + TAG).position(HEADER);
            dst.put(out);
        }
        dst.position(0).limit(HEADER + n + TAG);
    }

    /** Verifies and decrypts one record; releases the input. Returns an {@link EndMark} for END. */
    static Chunk open(SecretKeySpec key, Numbered record, ChunkAllocator alloc) {
        Chunk out = null;
        try {
            ByteBuffer r = record.buffer();
            int p = r.position();
            long expected = record.seq;
            byte flags = r.get(p);
            long seq = r.getLong(p + 1);
            int length = r.getInt(p + 9);
            if (seq != expected) {
                throw new ProtocolException(ErrorCode.CODEC, seq < expected
                        ? "aes-256-gcm: record #" + seq + " arrived again where #" + expected
                                + " was expected (replayed or reordered data)"
                        : "aes-256-gcm: record #" + expected + " is missing, #" + seq
                                + " arrived instead (dropped or reordered data)");
            }
            if ((flags & ~END) != 0) {
                throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: corrupt record #" + expected + " (unknown flags)");
            }
            byte[] header = new byte[HEADER];
            r.get(p, header);
            int plain = length - TAG;
            out = alloc.allocate(plain);
            ByteBuffer dst = out.buffer();
            ByteBuffer body = r.duplicate();
            body.position(p + HEADER).limit(p + HEADER + length);
            // Direct memory on both sides: the JDK's GCM intrinsics are only used there.
            ByteBuffer in = DirectScratch.direct(body, 0);
            ByteBuffer target = dst.isDirect() ? dst : DirectScratch.get(1, plain);
            try {
                CryptoCipher cipher = CIPHERS.get();
                cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG * 8, nonce(expected)));
                cipher.updateAAD(header);
                int n = cipher.doFinal(in, target);
                if (target != dst) {
                    target.flip();
                    dst.put(target);
                }
                if (n != plain) {
                    throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected + " decrypted to "
                            + n + " bytes, expected " + plain);
                }
            } catch (AEADBadTagException e) {
                throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected
                        + " failed authentication: the data was altered"
                        + (expected == 0 ? ", or the two sides use different keys" : ""));
            } catch (GeneralSecurityException e) {
                throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected
                        + " could not be decrypted (" + e.getMessage() + ")", e);
            }
            dst.position(0).limit(plain);
            boolean end = (flags & END) != 0;
            if (end != (plain == 0)) {
                throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: corrupt record #" + expected
                        + (end ? " (end mark with data)" : " (empty data record)"));
            }
            if (end) {
                out.release();
                out = null;
                return new EndMark();
            }
            Chunk result = out;
            out = null;
            return result;
        } finally {
            record.releaseQuietly();
            if (out != null) {
                out.releaseQuietly();
            }
        }
    }

    private static CryptoCipher newCipher() {
        try {
            return CryptoCipherFactory.getCryptoCipher(TRANSFORMATION, new Properties());
        } catch (GeneralSecurityException e) {
            throw new ProtocolException(ErrorCode.CODEC, "aes-256-gcm: no AES-GCM implementation available ("
                    + e.getMessage() + ")", e);
        }
    }

    /** A chunk that carries its sequence number; releasing it releases the chunk it stands for. */
    static final class Numbered extends Chunk {
        final long seq;
        private final Chunk inner;

        private Numbered(Chunk inner, long seq) {
            super(inner.buffer());
            this.inner = inner;
            this.seq = seq;
        }

        static Numbered of(Chunk inner, long seq) {
            try {
                return new Numbered(inner, seq);
            } catch (RuntimeException e) {
                inner.releaseQuietly();
                throw e;
            }
        }

        @Override
        protected void deallocate() {
            inner.releaseQuietly();
        }
    }

    /** What a verified END record decodes to; never leaves the decoder. */
    static final class EndMark extends Chunk {
        EndMark() {
            super(ByteBuffer.allocate(0));
        }

        @Override
        protected void deallocate() {
        }
    }

    /** The OpenSSL version Commons Crypto's native code found, for messages. */
    private static final class OpenSslVersion {
        static String get() {
            try {
                Class<?> info = Class.forName("org.apache.commons.crypto.OpenSslInfoNative");
                java.lang.reflect.Method m = info.getDeclaredMethod("OpenSSLVersion", int.class);
                m.setAccessible(true);
                return String.valueOf(m.invoke(null, 0));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return "(version unknown)";
            }
        }
    }

    /** Detects, once, which implementation Commons Crypto picks. */
    private static final class ProviderInfo {
        static final ProviderInfo INSTANCE = new ProviderInfo();
        final boolean openSsl;
        final String description;

        private ProviderInfo() {
            String cls;
            try (CryptoCipher c = CryptoCipherFactory.getCryptoCipher(TRANSFORMATION, new Properties())) {
                cls = c.getClass().getSimpleName();
            } catch (Exception e) {
                cls = "none (" + e.getMessage() + ")";
            }
            openSsl = cls.startsWith("OpenSsl");
            if (openSsl) {
                description = "AES-256-GCM: OpenSSL through Apache Commons Crypto " + Crypto.getComponentVersion()
                        + " (" + cls + ")";
            } else {
                String jce;
                try {
                    jce = Cipher.getInstance(TRANSFORMATION).getProvider().getName();
                } catch (GeneralSecurityException e) {
                    jce = "unknown";
                }
                description = "AES-256-GCM: JDK cipher (" + jce + ") through Apache Commons Crypto "
                        + Crypto.getComponentVersion() + " " + cls + "; OpenSSL binding not used: " + openSslReason();
            }
        }

        private static String openSslReason() {
            if (!Crypto.isNativeCodeLoaded()) {
                Throwable t = Crypto.getLoadingError();
                return "native code did not load" + (t != null ? " (" + rootMessage(t) + ")" : "");
            }
            Properties p = new Properties();
            p.setProperty(CryptoCipherFactory.CLASSES_KEY, "org.apache.commons.crypto.cipher.OpenSslCipher");
            try (CryptoCipher c = CryptoCipherFactory.getCryptoCipher(TRANSFORMATION, p)) {
                return "it loads (" + c.getAlgorithm() + ") but was not chosen";
            } catch (Exception e) {
                String m = rootMessage(e);
                // Commons Crypto 1.2.0 looks up functions that OpenSSL 3 turned into macros.
                return m.matches("EVP_[A-Za-z0-9_]+") ? "libcrypto " + OpenSslVersion.get() + " lacks " + m : m;
            }
        }

        private static String rootMessage(Throwable t) {
            Throwable r = t;
            while (r.getCause() != null && r.getCause() != r) {
                r = r.getCause();
            }
            String m = r.getMessage();
            return (m == null ? r.getClass().getSimpleName() : m).replace('\n', ' ');
        }
    }
}
