package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

class RoundTripTest {

    static final int BLOCK = 4096;

    static final String[] CHAINS = {
        "", "zstd:1", "zstd:1;level=-3", "zstd:1;level=9", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1", "aes-256-gcm:1,zstd:1",
        "zstd:1;level=1,aes-256-gcm:1,zstd:1",
    };

    static final int[] SIZES = {0, 1, 2, 63, 64, 65, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7, 50_000};
    static final int[] CHUNKS = {1, 13, 64, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 10_000};

    private static CodecContext context(ChunkAllocator alloc) {
        return CodecContext.of("shared secret".getBytes(), Codecs.newSalt()).withBlockSize(BLOCK).withAllocator(alloc)
                .withParallelism(3);
    }

    /** Encodes, re-cuts at random places (as a channel's frames would), decodes, and checks bytes and leases. */
    static void roundTrip(String chainText, byte[] data, int chunkSize, Random r) {
        CodecChain chain = CodecChain.parse(chainText);
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        CodecContext ctx = context(alloc);
        TestData.Tracker src = new TestData.Tracker();
        byte[] encoded = TestData.collect(chain.encode(src.source(data, chunkSize), ctx));
        TestData.Tracker wire = new TestData.Tracker();
        byte[] decoded = TestData.collect(chain.decode(TestData.recut(encoded, r, 1 + r.nextInt(3 * BLOCK), wire), ctx));
        String what = "chain '" + chainText + "', " + data.length + " bytes in chunks of " + chunkSize;
        assertThat(decoded).as(what).isEqualTo(data);
        TestData.awaitZero(src.live::get, what + " (source)");
        TestData.awaitZero(wire.live::get, what + " (received)");
        TestData.awaitZero(alloc::outstanding, what + " (stage buffers)");
    }

    @Test
    void everyChainEverySizeAroundBlockBoundaries() {
        Random r = new Random(42);
        for (String chain : CHAINS) {
            for (int size : SIZES) {
                for (int chunk : CHUNKS) {
                    if (chunk == 1 && size > 5000) {
                        continue;
                    }
                    byte[] data = r.nextBoolean() ? TestData.compressible(r, size) : TestData.random(r, size);
                    roundTrip(chain, data, chunk, r);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void largeStreamWithDefaultBlockSize(String chainText) {
        Random r = new Random(7);
        byte[] data = new byte[5 * (1 << 20) + 123];
        byte[] text = TestData.compressible(r, data.length / 2);
        System.arraycopy(text, 0, data, 0, text.length);
        byte[] noise = TestData.random(r, data.length - text.length);
        System.arraycopy(noise, 0, data, text.length, noise.length);
        CodecChain chain = CodecChain.parse(chainText);
        CodecContext ctx = CodecContext.of("k".getBytes(), Codecs.newSalt());
        TestData.Tracker src = new TestData.Tracker();
        byte[] encoded = TestData.collect(chain.encode(src.source(data, 1 << 20), ctx));
        TestData.Tracker wire = new TestData.Tracker();
        // Frames of 1 MiB, as the channel delivers them.
        byte[] decoded = TestData.collect(chain.decode(src.source(encoded, 1 << 20).map(c -> c), ctx));
        assertThat(decoded).isEqualTo(data);
        if (chainText.startsWith("zstd")) {
            assertThat(encoded.length).isLessThan(data.length * 3 / 4);
        }
        TestData.awaitZero(src.live::get, "source");
        TestData.awaitZero(wire.live::get, "wire");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8})
    void anyParallelismKeepsOrder(int parallelism) {
        Random r = new Random(parallelism);
        byte[] data = TestData.random(r, 200 * 1000 + 17);
        for (String chainText : new String[] {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"}) {
            CodecChain chain = CodecChain.parse(chainText);
            CodecContext ctx = CodecContext.of("k".getBytes(), Codecs.newSalt()).withBlockSize(1000)
                    .withParallelism(parallelism);
            byte[] wire = TestData.collect(chain.encode(new TestData.Tracker().source(data, 3333), ctx));
            byte[] back = TestData.collect(chain.decode(TestData.recut(wire, r, 2500, new TestData.Tracker()), ctx));
            assertThat(back).as(chainText + " with parallelism " + parallelism).isEqualTo(data);
        }
    }

    @Test
    void incompressibleDataGrowsByTheRecordHeaderOnly() {
        Random r = new Random(3);
        byte[] data = TestData.random(r, 10 * BLOCK);
        CodecChain chain = CodecChain.parse("zstd:1");
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        byte[] encoded = TestData.collect(chain.encode(new TestData.Tracker().source(data, BLOCK), context(alloc)));
        assertThat(encoded.length).isEqualTo(data.length + 10 * ZstdStage.HEADER);
        assertThat(encoded[0]).isEqualTo(ZstdStage.RAW);
    }

    @Test
    void incompressibleDataThroughZstdAndAesIsNotCutIntoSlivers() {
        Random r = new Random(13);
        byte[] data = TestData.random(r, 10 * BLOCK);
        CodecChain chain = CodecChain.parse("zstd:1,aes-256-gcm:1");
        byte[] wire = TestData.collect(chain.encode(new TestData.Tracker().source(data, BLOCK),
                context(new ChunkAllocator.Pooled(4))));
        // One zstd record per block, one AES record per zstd record, and the END record.
        int perRecord = ZstdStage.HEADER + AesGcmStage.HEADER + AesGcmStage.TAG;
        assertThat(wire.length).isEqualTo(data.length + 10 * perRecord + AesGcmStage.HEADER + AesGcmStage.TAG);
    }

    @Test
    void compressibleDataShrinks() {
        Random r = new Random(4);
        byte[] data = TestData.compressible(r, 10 * BLOCK);
        byte[] encoded = TestData.collect(CodecChain.parse("zstd:1")
                .encode(new TestData.Tracker().source(data, BLOCK), context(new ChunkAllocator.Pooled(4))));
        assertThat(encoded.length).isLessThan(data.length / 2);
        assertThat(encoded[0]).isEqualTo(ZstdStage.ZSTD);
    }

    @Test
    void heapAllocatorWorksToo() {
        Random r = new Random(5);
        byte[] data = TestData.compressible(r, 5 * BLOCK + 3);
        CodecChain chain = CodecChain.parse("zstd:1,aes-256-gcm:1");
        CodecContext ctx = context(ChunkAllocator.heap());
        byte[] enc = TestData.collect(chain.encode(new TestData.Tracker().source(data, 1000), ctx));
        byte[] dec = TestData.collect(chain.decode(new TestData.Tracker().source(enc, 777), ctx));
        assertThat(dec).isEqualTo(data);
    }

    @Test
    void reactorOperatorFacadeOnChunksAndBuffers() {
        Random r = new Random(6);
        byte[] data = TestData.compressible(r, 300_000);
        byte[] key = "k".getBytes();
        byte[] salt = Codecs.newSalt();
        TestData.Tracker src = new TestData.Tracker();
        byte[] sealed = TestData.collect(src.source(data, 65536)
                .transform(Codecs.zstd(3)).transform(Codecs.aesGcmEncrypt(key, salt)));
        byte[] plain = TestData.collect(new TestData.Tracker().source(sealed, 9999)
                .transform(Codecs.aesGcmDecrypt(key, salt)).transform(Codecs.unzstd()));
        assertThat(plain).isEqualTo(data);
        TestData.awaitZero(src.live::get, "source");

        List<ByteBuffer> packed = Flux.just(ByteBuffer.wrap(data))
                .transform(Codecs.onBuffers(Codecs.zstd(1))).collectList().block();
        List<ByteBuffer> unpacked = Flux.fromIterable(packed)
                .transform(Codecs.onBuffers(Codecs.unzstd())).collectList().block();
        int total = unpacked.stream().mapToInt(ByteBuffer::remaining).sum();
        byte[] out = new byte[total];
        ByteBuffer o = ByteBuffer.wrap(out);
        unpacked.forEach(o::put);
        assertThat(out).isEqualTo(data);
    }

    @Test
    void bigChunksAreSplitWithoutCopyAndReleasedOnce() {
        TestData.Tracker t = new TestData.Tracker();
        byte[] data = TestData.random(new Random(8), 10_000);
        List<Chunk> parts = ChunkFlux.split(t.source(data, 10_000), 3000).collectList().block();
        assertThat(parts).extracting(Chunk::remaining).containsExactly(3000, 3000, 3000, 1000);
        assertThat(t.live.get()).isEqualTo(1);
        assertThat(TestData.drain(parts)).isEqualTo(data);
        assertThat(t.live.get()).isZero();
    }
}
