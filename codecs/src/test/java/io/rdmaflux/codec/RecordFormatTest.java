package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.crypto.Hkdf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Reads the stages' output with nothing but the record formats in docs/codecs.md, plain
 * javax.crypto and zstd's byte[] API, so the documented format and the code cannot drift apart.
 */
class RecordFormatTest {

    @Test
    void aesGcmRecordsDecryptAsDocumented() throws Exception {
        byte[] key = "shared key".getBytes(StandardCharsets.UTF_8);
        byte[] salt = new byte[64];
        new Random(1).nextBytes(salt);
        byte[] plain = TestData.compressible(new Random(2), 2500);
        CodecContext ctx = CodecContext.of(key, salt).withBlockSize(1000);
        byte[] wire = TestData.collect(CodecChain.parse("aes-256-gcm:1")
                .encode(Flux.just(Chunk.wrap(ByteBuffer.wrap(plain))), ctx));

        byte[] streamKey = Hkdf.sha256(key, salt, "rdma-flux aes-256-gcm v1 stream key".getBytes(StandardCharsets.UTF_8), 32);
        ByteBuffer b = ByteBuffer.wrap(wire);
        ByteBuffer out = ByteBuffer.allocate(plain.length);
        long seq = 0;
        boolean end = false;
        while (b.hasRemaining()) {
            byte[] header = new byte[13];
            b.get(header);
            ByteBuffer h = ByteBuffer.wrap(header);
            int flags = h.get();
            assertThat(h.getLong()).isEqualTo(seq);
            byte[] body = new byte[h.getInt()];
            b.get(body);
            byte[] nonce = ByteBuffer.allocate(12).putInt(0).putLong(seq).array();
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(streamKey, "AES"), new GCMParameterSpec(128, nonce));
            c.updateAAD(header);
            byte[] p = c.doFinal(body);
            if ((flags & 1) != 0) {
                assertThat(p).isEmpty();
                assertThat(b.hasRemaining()).isFalse();
                end = true;
            } else {
                assertThat(p.length).isBetween(1, 1000);
                out.put(p);
            }
            seq++;
        }
        assertThat(end).isTrue();
        assertThat(seq).isEqualTo(4); // 1000 + 1000 + 500, then END
        assertThat(out.array()).isEqualTo(plain);
    }

    @Test
    void zstdRecordsDecodeAsDocumented() {
        byte[] text = TestData.compressible(new Random(3), 3000);
        byte[] noise = TestData.random(new Random(4), 1000);
        byte[] plain = Arrays.copyOf(text, 4000);
        System.arraycopy(noise, 0, plain, 3000, 1000);
        byte[] wire = TestData.collect(CodecChain.parse("zstd:1;level=3")
                .encode(Flux.just(Chunk.wrap(ByteBuffer.wrap(plain))), CodecContext.keyless().withBlockSize(1000)));
        ByteBuffer b = ByteBuffer.wrap(wire);
        ByteBuffer out = ByteBuffer.allocate(plain.length);
        int[] types = new int[4];
        int i = 0;
        while (b.hasRemaining()) {
            int type = b.get();
            int stored = b.getInt();
            int original = b.getInt();
            byte[] payload = new byte[stored];
            b.get(payload);
            types[i++] = type;
            out.put(type == 0 ? payload : Zstd.decompress(payload, original));
        }
        assertThat(out.array()).isEqualTo(plain);
        assertThat(types).containsExactly(1, 1, 1, 0); // the random block is stored raw
    }
}
