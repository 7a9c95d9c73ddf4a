package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Flipped bits, dropped, reordered, replayed and truncated records, wrong keys: each must end the
 * stream with a CODEC error, and whatever was emitted before the error must be a correct prefix
 * of the plaintext made of whole verified blocks only.
 */
class TamperTest {

    static final int BLOCK = 1000;
    static final byte[] KEY = "correct horse".getBytes();
    static final byte[] SALT = Codecs.newSalt();

    static CodecContext ctx() {
        return ctx(SALT);
    }

    /** Every encryption in these tests uses a salt of its own: the JDK refuses to reuse a key and nonce. */
    static CodecContext ctx(byte[] salt) {
        return CodecContext.of(KEY, salt).withBlockSize(BLOCK).withParallelism(2);
    }

    /** The records of an aes-256-gcm stream. */
    static List<byte[]> records(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(stream);
        while (b.hasRemaining()) {
            int len = AesGcmStage.HEADER + b.getInt(b.position() + 9);
            byte[] r = new byte[len];
            b.get(r);
            out.add(r);
        }
        return out;
    }

    static byte[] join(List<byte[]> records) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        records.forEach(r -> o.write(r, 0, r.length));
        return o.toByteArray();
    }

    record Outcome(byte[] emitted, Throwable error) {
    }

    static Outcome decode(String chain, byte[] wire, CodecContext ctx) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TestData.Tracker t = new TestData.Tracker();
        Throwable[] err = new Throwable[1];
        CodecChain.parse(chain).decode(TestData.recut(wire, new Random(1), 700, t), ctx)
                .doOnNext(c -> TestData.append(out, c))
                .onErrorResume(e -> {
                    err[0] = e;
                    return Flux.empty();
                })
                .blockLast();
        TestData.awaitZero(t.live::get, "received chunks");
        return new Outcome(out.toByteArray(), err[0]);
    }

    static final byte[] plain = TestData.random(new Random(11), 10 * BLOCK);

    static final byte[] ENCRYPTED =
            TestData.collect(CodecChain.parse("aes-256-gcm:1").encode(new TestData.Tracker().source(plain, BLOCK), ctx()));

    static byte[] encrypted() {
        return ENCRYPTED.clone();
    }

    static void assertFails(UnaryOperator<List<byte[]>> tamper, String messagePart) {
        List<byte[]> recs = new ArrayList<>(records(encrypted()));
        assertThat(recs).hasSize(11);
        Outcome o = decode("aes-256-gcm:1", join(tamper.apply(recs)), ctx());
        assertThat(o.error()).isInstanceOfSatisfying(RdmaFluxException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC)).hasMessageContaining(messagePart);
        // Only verified data got out: a prefix of the plaintext, in whole blocks.
        assertThat(o.emitted().length % BLOCK).isZero();
        assertThat(o.emitted()).isEqualTo(Arrays.copyOf(plain, o.emitted().length));
    }

    @Test
    void untouchedStreamDecodes() {
        Outcome o = decode("aes-256-gcm:1", encrypted(), ctx());
        assertThat(o.error()).isNull();
        assertThat(o.emitted()).isEqualTo(plain);
    }

    @Test
    void flippedBitInCiphertextFails() {
        assertFails(r -> {
            r.get(4)[AesGcmStage.HEADER + 100] ^= 0x10;
            return r;
        }, "record #4 failed authentication");
    }

    @Test
    void flippedBitInTagFails() {
        assertFails(r -> {
            byte[] x = r.get(2);
            x[x.length - 1] ^= 1;
            return r;
        }, "record #2 failed authentication");
    }

    @Test
    void flippedEndFlagFails() {
        assertFails(r -> {
            r.get(3)[0] ^= AesGcmRecords.END;
            return r;
        }, "record #3");
    }

    @Test
    void droppedRecordFails() {
        assertFails(r -> {
            r.remove(5);
            return r;
        }, "record #5 is missing");
    }

    @Test
    void reorderedRecordsFail() {
        assertFails(r -> {
            byte[] x = r.get(6);
            r.set(6, r.get(7));
            r.set(7, x);
            return r;
        }, "record #6 is missing, #7 arrived");
    }

    @Test
    void replayedRecordFails() {
        assertFails(r -> {
            r.add(4, r.get(3));
            return r;
        }, "record #3 arrived again where #4 was expected");
    }

    @Test
    void relabelledSequenceNumberFails() {
        // An attacker rewrites the header of record 7 to say 5, after dropping 5 and 6: the nonce and AAD differ.
        assertFails(r -> {
            byte[] x = r.get(7);
            ByteBuffer.wrap(x).putLong(1, 5);
            r.remove(6);
            r.remove(5);
            return r;
        }, "record #5 failed authentication");
    }

    @Test
    void missingEndRecordFails() {
        assertFails(r -> {
            r.remove(r.size() - 1);
            return r;
        }, "truncated");
    }

    @Test
    void truncatedInsideARecordFails() {
        List<byte[]> recs = records(encrypted());
        byte[] wire = join(recs);
        Outcome o = decode("aes-256-gcm:1", Arrays.copyOf(wire, wire.length - 500 - 29), ctx());
        assertThat(o.error()).isInstanceOf(RdmaFluxException.class).hasMessageContaining("ends inside a record");
        assertThat(o.emitted()).isEqualTo(Arrays.copyOf(plain, o.emitted().length));
    }

    @Test
    void dataAfterTheEndFails() {
        // A record appended after END (a second stream's END spliced in, say) is refused too.
        List<byte[]> recs = records(encrypted());
        List<byte[]> spliced = new ArrayList<>(recs);
        spliced.add(recs.get(recs.size() - 1));
        Outcome o = decode("aes-256-gcm:1", join(spliced), ctx());
        assertThat(o.error()).isInstanceOf(RdmaFluxException.class).hasMessageContaining("#10 arrived again");
    }

    @Test
    void wrongKeyOrWrongSaltFailsOnTheFirstRecord() {
        byte[] wire = encrypted();
        Outcome k = decode("aes-256-gcm:1", wire, CodecContext.of("wrong".getBytes(), SALT).withBlockSize(BLOCK));
        assertThat(k.error()).hasMessageContaining("record #0 failed authentication")
                .hasMessageContaining("different keys");
        assertThat(k.emitted()).isEmpty();
        byte[] salt = SALT.clone();
        salt[31] ^= 1;
        Outcome s = decode("aes-256-gcm:1", wire, CodecContext.of(KEY, salt).withBlockSize(BLOCK));
        assertThat(s.error()).hasMessageContaining("record #0 failed authentication");
    }

    @Test
    void emptyStreamIsAnEndRecordAndAnEmptyInputIsTruncation() {
        CodecContext own = ctx(Codecs.newSalt());
        byte[] wire = TestData.collect(CodecChain.parse("aes-256-gcm:1").encode(Flux.empty(), own));
        assertThat(wire).hasSize(AesGcmStage.HEADER + AesGcmStage.TAG);
        assertThat(decode("aes-256-gcm:1", wire, own).error()).isNull();
        assertThat(decode("aes-256-gcm:1", new byte[0], ctx()).error()).hasMessageContaining("truncated");
    }

    @Test
    void corruptZstdFailsWithACodecError() {
        byte[] data = TestData.compressible(new Random(2), 10 * BLOCK);
        byte[] wire = TestData.collect(CodecChain.parse("zstd:1").encode(new TestData.Tracker().source(data, BLOCK), ctx()));
        assertThat(wire[0]).isEqualTo(ZstdStage.ZSTD);
        byte[] badFrame = wire.clone();
        badFrame[ZstdStage.HEADER] ^= (byte) 0xFF;   // the first byte of the zstd frame's magic number
        Outcome o = decode("zstd:1", badFrame, ctx());
        assertThat(o.error()).isInstanceOfSatisfying(RdmaFluxException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC)).hasMessageStartingWith("zstd: corrupt compressed block (");
        assertThat(o.emitted()).isEmpty();
        byte[] badHeader = wire.clone();
        badHeader[0] = 7;
        assertThat(decode("zstd:1", badHeader, ctx()).error()).hasMessageContaining("zstd: corrupt stream");
        byte[] badLength = wire.clone();
        ByteBuffer.wrap(badLength).putInt(1, Integer.MAX_VALUE);
        assertThat(decode("zstd:1", badLength, ctx()).error()).hasMessageContaining("zstd: corrupt stream");
    }

    @Test
    void zstdHasNoChecksumOfItsOwn() {
        // Incompressible blocks are stored raw: a flipped byte there comes out flipped. The channel's
        // CRC32C (accidents) and aes-256-gcm (attackers) are what catch it, as docs/codecs.md says.
        byte[] data = TestData.random(new Random(3), 3 * BLOCK);
        byte[] wire = TestData.collect(CodecChain.parse("zstd:1").encode(new TestData.Tracker().source(data, BLOCK), ctx()));
        assertThat(wire[0]).isEqualTo(ZstdStage.RAW);
        wire[ZstdStage.HEADER + 10] ^= 1;
        Outcome o = decode("zstd:1", wire, ctx());
        assertThat(o.error()).isNull();
        byte[] expected = data.clone();
        expected[10] ^= 1;
        assertThat(o.emitted()).isEqualTo(expected);
    }

    @Test
    void tamperedCompressedAndEncryptedStreamFails() {
        byte[] data = TestData.compressible(new Random(2), 10 * BLOCK);
        String chain = "zstd:1,aes-256-gcm:1";
        CodecContext own = ctx(Codecs.newSalt());
        byte[] wire = TestData.collect(CodecChain.parse(chain).encode(new TestData.Tracker().source(data, BLOCK), own));
        wire[wire.length / 2] ^= 4;
        Outcome o = decode(chain, wire, own);
        assertThat(o.error()).isInstanceOf(RdmaFluxException.class).hasMessageContaining("failed authentication");
        assertThat(o.emitted()).isEqualTo(Arrays.copyOf(data, o.emitted().length));
    }
}
