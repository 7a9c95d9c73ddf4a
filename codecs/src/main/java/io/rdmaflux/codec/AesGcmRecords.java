package io.rdmaflux.codec;

import static io.rdmaflux.codec.AesGcmStage.HEADER;
import static io.rdmaflux.codec.AesGcmStage.TAG;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.crypto.Hkdf;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.commons.crypto.cipher.CryptoCipher;

/**
 * Seals blocks into {@code aes-256-gcm:1} records and opens them, with one stream's key: the
 * record format, the key derivation and the nonces of docs/codecs.md, and nothing about streams
 * of records (numbering, the end, truncation), which is {@link AesGcmStage}'s. Safe to use from
 * several threads at once: each thread has its own cipher.
 */
final class AesGcmRecords {

    /** Flags bit 0: the stream's last record, with empty plaintext. */
    static final byte END = 1;

    /** Reads a record's length for {@link RecordAssembler}: ciphertext and tag follow the header. */
    static final RecordAssembler.Header FORMAT =
            RecordAssembler.Header.withLengthAt(HEADER, 9, TAG, RecordAssembler.MAX_RECORD - HEADER, AesGcmStage.NAME);

    private final SecretKeySpec key;
    private final AesGcmProvider provider;
    private final ChunkAllocator alloc;

    AesGcmRecords(SecretKeySpec key, AesGcmProvider provider, ChunkAllocator alloc) {
        this.key = key;
        this.provider = provider;
        this.alloc = alloc;
    }

    /**
     * The stream key: HKDF-SHA256 of the context's key with its salt, {@link AesGcmStage#INFO}.
     * Throws a CODEC error, before any data moves, when the context has no key or salt.
     */
    static SecretKeySpec streamKey(CodecContext ctx) {
        byte[] key = ctx.key();
        byte[] salt = ctx.salt();
        if (key == null || key.length == 0) {
            throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: no key given (the stream is encrypted)");
        }
        if (salt == null || salt.length < 16) {
            throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: a salt of at least 16 bytes is required");
        }
        return new SecretKeySpec(Hkdf.sha256(key, salt, AesGcmStage.INFO.getBytes(StandardCharsets.UTF_8), 32), "AES");
    }

    /** Encrypts one non-empty block into record {@code seq}; releases the block. */
    Chunk seal(Chunk block, long seq) {
        Chunk out = null;
        try {
            ByteBuffer src = block.buffer().duplicate();
            out = alloc.allocate(HEADER + src.remaining() + TAG);
            sealInto((byte) 0, seq, src, out.buffer());
            Chunk result = out;
            out = null;
            return result;
        } finally {
            block.releaseQuietly();
            if (out != null) {
                out.releaseQuietly();
            }
        }
    }

    /** The END record, number {@code seq}. */
    Chunk sealEnd(long seq) {
        Chunk out = alloc.allocate(HEADER + TAG);
        try {
            sealInto(END, seq, ByteBuffer.allocate(0), out.buffer());
            return out;
        } catch (RuntimeException e) {
            out.releaseQuietly();
            throw e;
        }
    }

    private void sealInto(byte flags, long seq, ByteBuffer src, ByteBuffer dst) {
        int n = src.remaining();
        byte[] header = header(flags, seq, n + TAG);
        dst.put(0, header);
        // Direct memory on both sides: OpenSSL needs it, and the JDK's GCM intrinsics are only used there.
        ByteBuffer in = DirectScratch.direct(src, 0);
        ByteBuffer out = dst.isDirect() ? dst : DirectScratch.get(1, HEADER + n + TAG);
        out.limit(HEADER + n + TAG).position(HEADER);
        try {
            CryptoCipher cipher = provider.cipher();
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG * 8, nonce(seq)));
            cipher.updateAAD(header);
            int written = cipher.doFinal(in, out);
            if (written != n + TAG) {
                throw new IllegalStateException("cipher wrote " + written + " bytes, expected " + (n + TAG));
            }
        } catch (GeneralSecurityException e) {
            throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: encryption failed (" + e.getMessage() + ")", e);
        }
        if (out != dst) {
            out.flip().position(HEADER);
            dst.limit(HEADER + n + TAG).position(HEADER);
            dst.put(out);
        }
        dst.position(0).limit(HEADER + n + TAG);
    }

    /**
     * Verifies and decrypts one record that must be number {@code expected}; releases it. The END
     * record (the only one allowed empty plaintext) decodes to an empty chunk.
     */
    Chunk open(Chunk record, long expected) {
        Chunk out = null;
        try {
            ByteBuffer r = record.buffer();
            int p = r.position();
            byte flags = r.get(p);
            long seq = r.getLong(p + 1);
            int length = r.getInt(p + 9);
            if (seq != expected) {
                throw new RdmaFluxException(ErrorCode.CODEC, seq < expected
                        ? "aes-256-gcm: record #" + seq + " arrived again where #" + expected
                                + " was expected (replayed or reordered data)"
                        : "aes-256-gcm: record #" + expected + " is missing, #" + seq
                                + " arrived instead (dropped or reordered data)");
            }
            if ((flags & ~END) != 0) {
                throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: corrupt record #" + expected + " (unknown flags)");
            }
            byte[] header = new byte[HEADER];
            r.get(p, header);
            int plain = length - TAG;
            out = alloc.allocate(plain);
            ByteBuffer dst = out.buffer();
            ByteBuffer body = r.duplicate();
            body.position(p + HEADER).limit(p + HEADER + length);
            ByteBuffer in = DirectScratch.direct(body, 0);
            ByteBuffer target = dst.isDirect() ? dst : DirectScratch.get(1, plain);
            try {
                CryptoCipher cipher = provider.cipher();
                cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG * 8, nonce(expected)));
                cipher.updateAAD(header);
                int n = cipher.doFinal(in, target);
                if (n != plain) {
                    throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected + " decrypted to "
                            + n + " bytes, expected " + plain);
                }
                if (target != dst) {
                    target.flip();
                    dst.put(target);
                }
            } catch (AEADBadTagException e) {
                throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected
                        + " failed authentication: the data was altered"
                        + (expected == 0 ? ", or the two sides use different keys" : ""));
            } catch (GeneralSecurityException e) {
                throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: record #" + expected
                        + " could not be decrypted (" + e.getMessage() + ")", e);
            }
            dst.position(0).limit(plain);
            boolean end = (flags & END) != 0;
            if (end != (plain == 0)) {
                throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: corrupt record #" + expected
                        + (end ? " (end mark with data)" : " (empty data record)"));
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

    /** 4 zero bytes and the record number: unique per record within a stream, and each stream has its own key. */
    private static byte[] nonce(long seq) {
        byte[] n = new byte[12];
        for (int i = 0; i < 8; i++) {
            n[4 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        return n;
    }

    private static byte[] header(byte flags, long seq, int length) {
        return ByteBuffer.allocate(HEADER).put(flags).putLong(seq).putInt(length).array();
    }
}
