package io.rdmaflux.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.codec.CodecStageContract;
import io.rdmaflux.error.RdmaFluxException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** The custom stage: found through ServiceLoader, in a chain with built-in stages, and held to the stage contract. */
class Crc32cStageTest extends CodecStageContract {

    @Override
    protected CodecStage stage() {
        return new Crc32cStage();
    }

    /** One bit of record 3's payload flipped (a record: u32 length, payload, u32 CRC32C). */
    @Override
    protected Damage damage(byte[] wire) {
        byte[] w = wire.clone();
        ByteBuffer b = ByteBuffer.wrap(w);
        int at = 0;
        for (int k = 0; k < 3; k++) {
            at += 8 + b.getInt(at);
        }
        w[at + 4 + 5] ^= 1;
        return new Damage(w, "crc32c: checksum mismatch, the data was corrupted");
    }

    @Test
    void customStageIsFoundThroughServiceLoader() {
        assertThat(CodecRegistry.defaultRegistry().stages()).extracting(CodecStage::name)
                .contains("crc32c", "zstd", "aes-256-gcm");
    }

    @Test
    void roundTripsThroughAChainWithBuiltInStagesAndDetectsCorruption() {
        byte[] data = new byte[300_000];
        new Random(1).nextBytes(data);
        CodecChain chain = CodecChain.parse("crc32c:1,zstd:1");
        CodecContext ctx = CodecContext.keyless().withBlockSize(10_000);
        byte[] wire = bytes(chain.encode(Flux.just(Chunk.wrap(ByteBuffer.wrap(data))), ctx));
        assertThat(bytes(chain.decode(pieces(wire, 777), ctx))).isEqualTo(data);

        byte[] crcOnly = bytes(CodecChain.parse("crc32c:1").encode(Flux.just(Chunk.wrap(ByteBuffer.wrap(data))), ctx));
        crcOnly[50_000] ^= 1;
        assertThatThrownBy(() -> bytes(CodecChain.parse("crc32c:1").decode(pieces(crcOnly, 5000), ctx)))
                .isInstanceOf(RdmaFluxException.class).hasMessageContaining("crc32c: checksum mismatch");
    }

    static Flux<Chunk> pieces(byte[] b, int size) {
        List<Chunk> out = new ArrayList<>();
        for (int off = 0; off < b.length; off += size) {
            out.add(Chunk.wrap(ByteBuffer.wrap(b, off, Math.min(size, b.length - off)).slice()));
        }
        return Flux.fromIterable(out);
    }

    static byte[] bytes(Flux<Chunk> f) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        f.doOnNext(c -> {
            ByteBuffer b = c.buffer();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            o.write(a, 0, a.length);
            c.release();
        }).blockLast();
        return o.toByteArray();
    }
}
