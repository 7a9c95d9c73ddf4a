package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The {@link CodecStage} contract as tests: every stage's test extends this class (the built-in
 * stages' here, {@code crc32c} in samples/), says how to make its stage and how to damage its
 * output, and inherits these checks, each in both directions where it applies:
 * <ul>
 *   <li>a round trip is exact for seeded random sizes, empty and one byte included, through a
 *       random re-cut of the encoded bytes (as the channel's frames would cut them);</li>
 *   <li>every input chunk is released exactly once ({@link Chunk#release} refuses a second
 *       release, which would end the stream with an error), on complete, cancel and error,
 *       and every buffer the stage allocated comes back;</li>
 *   <li>cancel mid-stream reaches upstream and releases everything;</li>
 *   <li>an upstream error arrives downstream once, as it was, and nothing follows it;</li>
 *   <li>damaged input, or a stream cut inside a record, ends the decoder with a one-line CODEC
 *       {@link RdmaFluxException}, not a hang, not an unchecked exception;</li>
 *   <li>no more chunks go downstream than were requested.</li>
 * </ul>
 * Cases are generated from fixed seeds; a failure names its seed and case.
 */
public abstract class CodecStageContract {

    /** The block size the contexts cut input into; small, so that streams have many records. */
    protected static final int BLOCK = 2048;
    /** Blocks in the stream {@link #damage} is given. */
    protected static final int DAMAGE_BLOCKS = 8;
    private static final long[] SEEDS = {1, 2, 3, 22, 1_000_003};
    private static final Duration HANG = Duration.ofSeconds(30);
    private static final byte[] KEY = "codec stage contract".getBytes();

    /** The stage under test. */
    protected abstract CodecStage stage();

    /** The spec both directions use; by default the stage's name and version. */
    protected CodecSpec spec() {
        return CodecSpec.of(stage().name(), stage().version());
    }

    /** An encoded stream with damage the decoder must refuse, and the message it must refuse it with. */
    public record Damage(byte[] wire, String message) {
    }

    /**
     * Damages a copy of {@code wire}, the encoding of {@link #DAMAGE_BLOCKS} blocks of
     * {@link #BLOCK} random bytes, somewhere past its first record.
     */
    protected abstract Damage damage(byte[] wire);

    /** A context of its own salt (a key and nonce are never reused), for one encode and its decode. */
    private static CodecContext context(ChunkAllocator alloc) {
        return CodecContext.of(KEY, Codecs.newSalt()).withBlockSize(BLOCK).withAllocator(alloc).withParallelism(3);
    }

    private Flux<Chunk> encode(Flux<Chunk> in, CodecContext ctx) {
        return stage().encoder(spec(), ctx).apply(in);
    }

    private Flux<Chunk> decode(Flux<Chunk> in, CodecContext ctx) {
        return stage().decoder(spec(), ctx).apply(in);
    }

    private static void assertReleased(TestData.Tracker t, ChunkAllocator alloc, String what) {
        TestData.awaitZero(t.live::get, what + ": input chunks");
        TestData.awaitZero(alloc::outstanding, what + ": the stage's own buffers");
    }

    /** Encodes {@code data} with untracked input; the context is for the decode that follows. */
    private byte[] encoded(byte[] data, CodecContext ctx) {
        return TestData.collect(encode(new TestData.Tracker().source(data, BLOCK), ctx));
    }

    @Test
    void aRoundTripIsExactForRandomSizesIncludingEmptyAndOneByte() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            for (int i = 0; i < 12; i++) {
                int size = i == 0 ? 0 : i == 1 ? 1 : r.nextInt(5 * BLOCK);
                int chunk = 1 + r.nextInt(3 * BLOCK);
                if (size / chunk > 400) {
                    chunk = size / 400;   // keeps a case quick; small chunks are still covered
                }
                byte[] data = r.nextBoolean() ? TestData.compressible(r, size) : TestData.random(r, size);
                int piece = 1 + r.nextInt(2 * BLOCK);
                String what = "seed " + seed + " case " + i + ": " + size + " bytes in chunks of " + chunk
                        + ", received in pieces of up to " + piece;
                ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
                CodecContext ctx = context(alloc);
                TestData.Tracker src = new TestData.Tracker();
                byte[] wire = TestData.collect(encode(src.source(data, chunk), ctx));
                TestData.Tracker received = new TestData.Tracker();
                byte[] back = TestData.collect(decode(TestData.recut(wire, r, piece, received), ctx));
                assertThat(back).as(what).isEqualTo(data);
                assertThat(src.created.get()).as(what).isEqualTo((size + chunk - 1) / chunk);
                assertReleased(src, alloc, what + " (encode)");
                assertReleased(received, alloc, what + " (decode)");
            }
        }
    }

    @Test
    void cancelMidStreamReachesUpstreamAndReleasesEverything() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            int take = r.nextInt(4);
            String what = "seed " + seed + ", cancel after " + take;

            // Encode an endless source: only the cancel ends it.
            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            TestData.Tracker src = new TestData.Tracker();
            AtomicBoolean cancelled = new AtomicBoolean();
            byte[] block = TestData.random(r, BLOCK);
            // Flux.generate is fusable: a stage that drained a fused source to discard it on
            // cancel would never stop. On a thread of its own, so that this fails the test.
            Flux<Chunk> endless = Flux.<Chunk>generate(s -> s.next(src.track(ByteBuffer.wrap(block.clone()))))
                    .doOnCancel(() -> cancelled.set(true));
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread run = new Thread(() -> {
                try {
                    StepVerifier.create(encode(endless, context(alloc)).take(take).doOnNext(Chunk::release))
                            .expectNextCount(take).expectComplete().verify(HANG);
                } catch (Throwable t) {
                    failed.set(t);
                }
            }, "contract: cancel an endless source");
            run.setDaemon(true);
            run.start();
            try {
                run.join(HANG.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(run.isAlive()).as(what + ": the encoder never let go of an endless source").isFalse();
            assertThat(failed.get()).as(what).isNull();
            assertThat(cancelled).as(what + ": upstream of the encoder cancelled").isTrue();
            assertReleased(src, alloc, what + " (encode)");

            // Decode a long stream, cancelled long before its end.
            ChunkAllocator alloc2 = new ChunkAllocator.Pooled(4);
            CodecContext ctx = context(alloc2);
            byte[] wire = encoded(TestData.random(r, 40 * BLOCK), ctx);
            TestData.Tracker received = new TestData.Tracker();
            AtomicBoolean cancelled2 = new AtomicBoolean();
            StepVerifier.create(decode(TestData.recut(wire, r, BLOCK, received).doOnCancel(() -> cancelled2.set(true)),
                            ctx).take(take).doOnNext(Chunk::release))
                    .expectNextCount(take).expectComplete().verify(HANG);
            assertThat(cancelled2).as(what + ": upstream of the decoder cancelled").isTrue();
            assertReleased(received, alloc2, what + " (decode)");
        }
    }

    @Test
    void anUpstreamErrorArrivesOnceAsItWasAndReleasesWhatWasHeld() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            int before = r.nextInt(12);
            String what = "seed " + seed + ", error after " + before + " chunks";
            IllegalStateException fire = new IllegalStateException("disk on fire");

            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            TestData.Tracker src = new TestData.Tracker();
            Probe enc = Probe.unbounded();
            encode(src.source(TestData.random(r, 12 * BLOCK), BLOCK / 2).take(before).concatWith(Flux.error(fire)),
                    context(alloc)).subscribe(enc);
            enc.awaitEnd(what + " (encode)");
            assertReleased(src, alloc, what + " (encode)");
            enc.assertErrorOnce(what + " (encode)").isSameAs(fire);

            ChunkAllocator alloc2 = new ChunkAllocator.Pooled(4);
            CodecContext ctx = context(alloc2);
            byte[] wire = encoded(TestData.random(r, 12 * BLOCK), ctx);
            TestData.Tracker received = new TestData.Tracker();
            Probe dec = Probe.unbounded();
            decode(TestData.recut(wire, r, BLOCK, received).take(before).concatWith(Flux.error(fire)), ctx).subscribe(dec);
            dec.awaitEnd(what + " (decode)");
            assertReleased(received, alloc2, what + " (decode)");
            dec.assertErrorOnce(what + " (decode)").isSameAs(fire);
        }
    }

    @Test
    void damagedInputFailsTheDecoderWithTheDocumentedError() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            CodecContext ctx = context(alloc);
            Damage d = damage(encoded(TestData.random(r, DAMAGE_BLOCKS * BLOCK), ctx));
            String what = "seed " + seed + ", damaged stream";
            TestData.Tracker received = new TestData.Tracker();
            Probe dec = Probe.unbounded();
            decode(TestData.recut(d.wire(), r, BLOCK, received), ctx).subscribe(dec);
            dec.awaitEnd(what);
            assertReleased(received, alloc, what);
            dec.assertErrorOnce(what).isInstanceOfSatisfying(RdmaFluxException.class,
                    p -> assertThat(p.code()).as(what).isEqualTo(ErrorCode.CODEC)).hasMessage(d.message());
        }
    }

    @Test
    void aStreamCutInsideARecordFailsTheDecoder() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            CodecContext ctx = context(alloc);
            byte[] wire = encoded(TestData.random(r, DAMAGE_BLOCKS * BLOCK), ctx);
            // Inside the last record, which holds a block of random bytes: a cut between records
            // leaves a valid shorter stream (the channel, not the stage, knows where a stream ends).
            int cut = wire.length - 1 - r.nextInt(BLOCK / 2);
            String what = "seed " + seed + ", " + wire.length + " bytes cut to " + cut;
            byte[] cutWire = java.util.Arrays.copyOf(wire, cut);
            TestData.Tracker received = new TestData.Tracker();
            Probe dec = Probe.unbounded();
            decode(TestData.recut(cutWire, r, BLOCK, received), ctx).subscribe(dec);
            dec.awaitEnd(what);
            assertReleased(received, alloc, what);
            dec.assertErrorOnce(what).isInstanceOfSatisfying(RdmaFluxException.class,
                    p -> assertThat(p.code()).as(what).isEqualTo(ErrorCode.CODEC))
                    .hasMessageStartingWith(stage().name() + ": ");
        }
    }

    @Test
    void noMoreGoesDownstreamThanWasRequested() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            byte[] data = TestData.random(r, 20 * BLOCK);
            String what = "seed " + seed;
            ChunkAllocator alloc = new ChunkAllocator.Pooled(4);
            CodecContext ctx = context(alloc);
            TestData.Tracker src = new TestData.Tracker();
            Probe enc = Probe.oneAtATime();
            encode(src.source(data, 1 + r.nextInt(2 * BLOCK)), ctx).subscribe(enc);
            enc.awaitEnd(what + " (encode)");
            enc.assertCompleteWithin(what + " (encode)");
            byte[] wire = enc.bytes.toByteArray();

            TestData.Tracker received = new TestData.Tracker();
            Probe dec = Probe.oneAtATime();
            decode(TestData.recut(wire, r, BLOCK, received), ctx).subscribe(dec);
            dec.awaitEnd(what + " (decode)");
            dec.assertCompleteWithin(what + " (decode)");
            assertThat(dec.bytes.toByteArray()).as(what).isEqualTo(data);
            assertReleased(src, alloc, what + " (encode)");
            assertReleased(received, alloc, what + " (decode)");
        }
    }

    /**
     * A subscriber without operators in between, so that it sees exactly what the stage
     * signals: it counts terminal signals, notes anything after one, and checks each chunk
     * against demand. Chunks are copied out and released as they arrive.
     */
    private static final class Probe implements CoreSubscriber<Chunk> {
        private final boolean oneAtATime;
        private final AtomicLong requested = new AtomicLong();
        private final AtomicLong received = new AtomicLong();
        private final AtomicInteger errors = new AtomicInteger();
        private final AtomicInteger completes = new AtomicInteger();
        private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        private final CountDownLatch ended = new CountDownLatch(1);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private volatile Subscription subscription;
        private volatile Throwable error;

        private Probe(boolean oneAtATime) {
            this.oneAtATime = oneAtATime;
        }

        static Probe unbounded() {
            return new Probe(false);
        }

        /** Requests one chunk at a time, from another thread, after the previous one arrived. */
        static Probe oneAtATime() {
            return new Probe(true);
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            request(oneAtATime ? 1 : Long.MAX_VALUE);
        }

        private void request(long n) {
            requested.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            subscription.request(n);
        }

        @Override
        public void onNext(Chunk c) {
            long n = received.incrementAndGet();
            if (ended.getCount() == 0) {
                violations.add("a chunk after the end");
            }
            if (n > requested.get()) {
                violations.add("chunk #" + n + " with " + requested.get() + " requested");
            }
            synchronized (bytes) {
                TestData.append(bytes, c);
            }
            if (oneAtATime) {
                CompletableFuture.runAsync(() -> request(1));
            }
        }

        @Override
        public void onError(Throwable t) {
            if (errors.incrementAndGet() == 1) {
                error = t;
            }
            end();
        }

        @Override
        public void onComplete() {
            completes.incrementAndGet();
            end();
        }

        private void end() {
            if (ended.getCount() == 0) {
                violations.add("a second terminal signal");
            }
            ended.countDown();
        }

        void awaitEnd(String what) {
            try {
                assertThat(ended.await(HANG.toSeconds(), TimeUnit.SECONDS))
                        .as(what + ": no terminal signal in " + HANG.toSeconds() + " s (a hang)").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(what + ": interrupted");
            }
        }

        /** After {@link #awaitEnd} and the releases: one error and nothing else; the error, to check. */
        org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertErrorOnce(String what) {
            assertThat(violations).as(what).isEmpty();
            assertThat(completes.get()).as(what + ": completions").isZero();
            assertThat(errors.get()).as(what + ": errors").isEqualTo(1);
            return assertThat(error).as(what);
        }

        void assertCompleteWithin(String what) {
            assertThat(violations).as(what).isEmpty();
            assertThat(error).as(what + ": error").isNull();
            assertThat(completes.get()).as(what + ": completions").isEqualTo(1);
        }
    }
}
