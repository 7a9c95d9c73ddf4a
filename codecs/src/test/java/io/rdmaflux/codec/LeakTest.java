package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** Every lease is released exactly once on complete, error and cancel, in every stage and direction. */
class LeakTest {

    static final int BLOCK = 2048;

    static final java.util.Map<String, byte[]> SALTS = new java.util.concurrent.ConcurrentHashMap<>();

    /** For decoding the cached stream of {@code chain}: each cached stream has a salt of its own. */
    static CodecContext ctx(ChunkAllocator alloc, String chain) {
        return CodecContext.of("k".getBytes(), SALTS.computeIfAbsent(chain, c -> Codecs.newSalt()))
                .withBlockSize(BLOCK).withAllocator(alloc).withParallelism(3);
    }

    /** For encoding: a fresh salt each time (a key and nonce are never reused). */
    static CodecContext ectx(ChunkAllocator alloc) {
        return CodecContext.of("k".getBytes(), Codecs.newSalt()).withBlockSize(BLOCK).withAllocator(alloc).withParallelism(3);
    }

    static final byte[] data = TestData.compressible(new Random(9), 40 * BLOCK);
    static final java.util.Map<String, byte[]> ENCODED = new java.util.concurrent.ConcurrentHashMap<>();

    static byte[] encoded(String chain) {
        return ENCODED.computeIfAbsent(chain, c -> TestData.collect(CodecChain.parse(c)
                .encode(new TestData.Tracker().source(data, BLOCK), ctx(new ChunkAllocator.Pooled(4), c)))).clone();
    }

    private static void assertNoLeaks(TestData.Tracker t, ChunkAllocator alloc, String what) {
        TestData.awaitZero(t.live::get, what + ": input");
        TestData.awaitZero(alloc::outstanding, what + ": stage buffers");
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void cancelMidStreamReleasesEverything(String chain) {
        for (int take : new int[] {0, 1, 3, 17}) {
            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            TestData.Tracker t = new TestData.Tracker();
            StepVerifier.create(CodecChain.parse(chain).encode(t.source(data, 3000), ectx(alloc)).take(take)
                            .doOnNext(Chunk::release))
                    .expectNextCount(take).verifyComplete();
            assertNoLeaks(t, alloc, chain + " encode, cancel after " + take);

            ChunkAllocator alloc2 = new ChunkAllocator.Pooled(4);
            TestData.Tracker t2 = new TestData.Tracker();
            StepVerifier.create(CodecChain.parse(chain).decode(TestData.recut(encoded(chain), new Random(take), 1500, t2),
                            ctx(alloc2, chain)).take(take).doOnNext(Chunk::release))
                    .expectNextCount(take).verifyComplete();
            assertNoLeaks(t2, alloc2, chain + " decode, cancel after " + take);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void cancelWithoutRequestingAndSlowConsumer(String chain) {
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        TestData.Tracker t = new TestData.Tracker();
        StepVerifier.create(CodecChain.parse(chain).encode(t.source(data, 1000), ectx(alloc)), 0)
                .thenAwait(Duration.ofMillis(50))
                .thenRequest(2)
                .consumeNextWith(Chunk::release)
                .consumeNextWith(Chunk::release)
                .thenAwait(Duration.ofMillis(50))
                .thenCancel()
                .verify(Duration.ofSeconds(10));
        assertNoLeaks(t, alloc, chain + " cancel with workers busy");
        // Demand bounds what is in flight: with 2 requested, the source was asked for little.
        assertThat(t.created.get()).isLessThan(30);
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void upstreamErrorReleasesEverythingAndPropagates(String chain) {
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        TestData.Tracker t = new TestData.Tracker();
        Flux<Chunk> failing = t.source(data, 1000).take(25)
                .concatWith(Flux.error(new IllegalStateException("disk on fire")));
        StepVerifier.create(CodecChain.parse(chain).encode(failing, ectx(alloc)).doOnNext(Chunk::release))
                .thenConsumeWhile(c -> true)
                .verifyErrorMessage("disk on fire");
        assertNoLeaks(t, alloc, chain + " upstream error");

        ChunkAllocator alloc2 = new ChunkAllocator.Pooled(4);
        TestData.Tracker t2 = new TestData.Tracker();
        Flux<Chunk> failingWire = TestData.recut(encoded(chain), new Random(3), 2000, t2).take(10)
                .concatWith(Flux.error(new IllegalStateException("peer died")));
        StepVerifier.create(CodecChain.parse(chain).decode(failingWire, ctx(alloc2, chain)).doOnNext(Chunk::release))
                .thenConsumeWhile(c -> true)
                .verifyErrorMessage("peer died");
        assertNoLeaks(t2, alloc2, chain + " decode upstream error");
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void downstreamFailureCancelsAndReleases(String chain) {
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        TestData.Tracker t = new TestData.Tracker();
        AtomicInteger seen = new AtomicInteger();
        StepVerifier.create(CodecChain.parse(chain).encode(t.source(data, 1000), ectx(alloc))
                        .doOnNext(c -> {
                            c.release();
                            if (seen.incrementAndGet() == 5) {
                                throw new IllegalStateException("sink full");
                            }
                        }))
                .thenConsumeWhile(c -> true)
                .verifyErrorMessage("sink full");
        assertNoLeaks(t, alloc, chain + " downstream error");
    }

    /** The offset of record {@code k} in a stream of one stage's records: zstd's (9-byte header) or aes-256-gcm's (13). */
    static int recordAt(byte[] wire, int k, boolean aes) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(wire);
        int at = 0;
        for (int i = 0; i < k; i++) {
            at += aes ? AesGcmStage.HEADER + b.getInt(at + 9) : ZstdStage.HEADER + b.getInt(at + 1);
        }
        return at;
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd:1", "aes-256-gcm:1", "zstd:1,aes-256-gcm:1"})
    void tamperedStreamReleasesEverything(String chain) {
        byte[] wire = encoded(chain);
        // Record 20 of 40, so that records before and after it are in flight when it fails.
        boolean aes = chain.endsWith("aes-256-gcm:1");
        int at = recordAt(wire, 20, aes);
        String expected;
        if (aes) {
            wire[at + AesGcmStage.HEADER + 7] ^= 1;
            expected = "aes-256-gcm: record #20 failed authentication: the data was altered";
        } else {
            wire[at] = 7;
            expected = "zstd: corrupt stream (bad record header)";
        }
        ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
        TestData.Tracker t = new TestData.Tracker();
        StepVerifier.create(CodecChain.parse(chain).decode(TestData.recut(wire, new Random(5), 1500, t), ctx(alloc, chain))
                        .doOnNext(Chunk::release))
                .thenConsumeWhile(c -> true)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaFluxException.class,
                        p -> assertThat(p.code()).isEqualTo(ErrorCode.CODEC)).hasMessage(expected))
                .verify(Duration.ofSeconds(10));
        assertNoLeaks(t, alloc, chain + " tampered");
    }
}
