package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.StreamChecksum;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Hooks;

/**
 * One receiving stream's data ({@link InboundQueue}) with real chunks: credits go back in
 * batches of a quarter of the ring as the application releases slots, and only while the
 * stream takes data; END is checked against what arrived; the data has one subscriber.
 */
class InboundQueueTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<Integer> granted = new CopyOnWriteArrayList<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AtomicInteger released = new AtomicInteger();
    private final InboundQueue queue = new InboundQueue(8, open::get, granted::add);

    private Chunk frame(int size) {
        return Chunk.of(ByteBuffer.allocate(size), released::incrementAndGet);
    }

    @Test
    void releasedSlotsGoBackToTheSenderAsCreditsInBatchesOfAQuarterOfTheRing() {
        List<Chunk> taken = new ArrayList<>();
        queue.take(() -> null).subscribe(taken::add);
        for (int i = 0; i < 5; i++) {
            assertThat(queue.offer(frame(100))).isEqualTo(InboundQueue.Offer.QUEUED);
        }
        assertThat(queue.creditsInFlight()).isEqualTo(5);
        taken.forEach(Chunk::release);
        assertThat(released).hasValue(5);
        assertThat(granted).containsExactly(2, 2);
        assertThat(queue.creditsInFlight()).isEqualTo(1);
        assertThat(queue.bytes()).isEqualTo(500);
    }

    @Test
    void noCreditGoesBackOnceTheStreamTakesNoMoreData() {
        List<Chunk> taken = new ArrayList<>();
        queue.take(() -> null).subscribe(taken::add);
        queue.offer(frame(10));
        queue.offer(frame(10));
        open.set(false);
        taken.forEach(Chunk::release);
        assertThat(granted).isEmpty();
        assertThat(released).hasValue(2);
    }

    @Test
    void aSenderBeyondItsCreditsOverflowsTheQueueAndTheFrameIsReleased() {
        // The application has subscribed but takes nothing: the ring's worth (and one) is
        // queued, then the queue overflows.
        queue.take(() -> null).subscribe(new BaseSubscriber<Chunk>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                // no demand
            }
        });
        for (int i = 0; i < 9; i++) {
            assertThat(queue.offer(frame(1))).isEqualTo(InboundQueue.Offer.QUEUED);
        }
        int offered = 9;
        InboundQueue.Offer last = InboundQueue.Offer.QUEUED;
        while (last == InboundQueue.Offer.QUEUED && offered < 64) {
            last = queue.offer(frame(1));
            offered++;
        }
        assertThat(last).as("after %d offers", offered).isEqualTo(InboundQueue.Offer.REFUSED);
        assertThat(released).hasValue(1);
    }

    @Test
    void aSenderBeyondItsCreditsBeforeTheApplicationSubscribedIsRefusedNotDropped() {
        // Reactor says FAIL_ZERO_SUBSCRIBER here, not FAIL_OVERFLOW: still a broken credit rule.
        InboundQueue.Offer last = InboundQueue.Offer.QUEUED;
        int offered = 0;
        while (last == InboundQueue.Offer.QUEUED && offered < 64) {
            last = queue.offer(frame(1));
            offered++;
        }
        assertThat(last).as("after %d offers", offered).isEqualTo(InboundQueue.Offer.REFUSED);
        assertThat(released).hasValue(1);
        assertThat(granted).as("no credit for a refused frame").isEmpty();
    }

    @Test
    void dataAfterTheVerifiedEndIsRefusedButAfterTheApplicationCancelledIsDropped() {
        queue.complete();
        assertThat(queue.offer(frame(1))).isEqualTo(InboundQueue.Offer.REFUSED);

        InboundQueue cancelled = new InboundQueue(8, open::get, granted::add);
        cancelled.take(() -> null).subscribe(new BaseSubscriber<Chunk>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                cancel();
            }
        });
        assertThat(cancelled.offer(frame(1))).isEqualTo(InboundQueue.Offer.DROPPED);
        assertThat(released).hasValue(2);
    }

    @Test
    void endIsCheckedAgainstTheBytesAndChecksumThatArrived() {
        ByteBuffer data = ByteBuffer.wrap("twelve bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        StreamChecksum expected = new StreamChecksum();
        expected.update(data.duplicate());
        queue.offer(Chunk.of(data, released::incrementAndGet));

        queue.verify(new ControlFrames.End(12, expected.crc()));
        assertThatThrownBy(() -> queue.verify(new ControlFrames.End(13, expected.crc())))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TRUNCATED))
                .hasMessage("stream incomplete: the sender sent 13 bytes but 12 arrived");
        assertThatThrownBy(() -> queue.verify(new ControlFrames.End(12, expected.crc() + 1)))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CHECKSUM));
    }

    @Test
    void theDataHasOneSubscriberAndASecondGetsTheStreamsFailure() {
        RdmaFluxException failure = new RdmaFluxException(ErrorCode.TRUNCATED, "sender vanished");
        queue.offer(frame(4));
        queue.complete();
        assertThat(queue.take(() -> failure).doOnNext(Chunk::release).count().block(WAIT)).isEqualTo(1);
        assertThat(queue.reading()).isTrue();
        assertThatThrownBy(() -> queue.take(() -> failure).blockLast(WAIT)).isSameAs(failure);
        assertThatThrownBy(() -> queue.take(() -> null).blockLast(WAIT))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only once");
    }

    @Test
    void aFailureAfterTheVerifiedEndIsNotDroppedLoudly() {
        // END verified, then the handler failed while writing: result() reports it, not Reactor's onErrorDropped.
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try {
            queue.offer(frame(4));
            queue.complete();
            queue.fail(new RdmaFluxException(ErrorCode.TRUNCATED, "the handler failed after END"));
            assertThat(queue.take(() -> null).doOnNext(Chunk::release).count().block(WAIT)).isEqualTo(1);
        } finally {
            Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).isEmpty();
    }

    @Test
    void whatNobodyClaimedIsReleasedWhenTheStreamFails() {
        queue.offer(frame(4));
        queue.offer(frame(4));
        queue.fail(new RdmaFluxException(ErrorCode.CANCELLED, "cancelled"));
        queue.releaseUnclaimed();
        assertThat(released).hasValue(2);
        assertThat(queue.reading()).isTrue();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFailureFromTheApplicationsOnNextEndsTheDataAfterThatFrame() {
        RdmaFluxException failure = new RdmaFluxException(ErrorCode.CANCELLED, "failed from onNext");
        AtomicReference<Throwable> ended = new AtomicReference<>();
        List<Chunk> got = new ArrayList<>();
        queue.take(() -> null).subscribe(c -> {
            got.add(c);
            queue.fail(failure);   // on the emitting thread, inside its emission
            c.release();
        }, ended::set);
        assertThat(queue.offer(frame(4))).isEqualTo(InboundQueue.Offer.QUEUED);
        assertThat(got).hasSize(1);
        assertThat(ended.get()).isSameAs(failure);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFailureThatAnOnNextWaitsForIsNotASpinForeverButEndsTheDataOnceOnNextReturns() throws Exception {
        // The application's onNext waits for a failure reported on another thread (a session's
        // timer, the transport's thread): that thread must not spin until onNext returns.
        RdmaFluxException failure = new RdmaFluxException(ErrorCode.TIMEOUT, "failed on another thread");
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CompletableFuture<Void> failed = new CompletableFuture<>();
        queue.take(() -> null).subscribe(c -> {
            Thread other = new Thread(() -> {
                queue.fail(failure);
                failed.complete(null);
            }, "failing");
            other.start();
            try {
                // Once fail() has returned; bounded, so that before the fix this failed rather than hung.
                failed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("fail() did not return while onNext waited", e);
            } finally {
                c.release();
            }
        }, ended::set);
        queue.offer(frame(4));
        assertThat(failed).as("fail() returned while onNext waited").isDone();
        assertThat(ended.get()).as("the failure reached the application after its onNext").isSameAs(failure);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCompletionThatAnOnNextWaitsForReturnsAndEndsTheDataOnceOnNextReturns() throws Exception {
        // The stream is verified on another thread while the application's onNext waits for
        // that: complete() must return, not throw once its wait for the emission is over.
        AtomicReference<Throwable> ended = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<Void> completed = new CompletableFuture<>();
        queue.take(() -> null).subscribe(c -> {
            Thread other = new Thread(() -> {
                try {
                    queue.complete();
                    completed.complete(null);
                } catch (Throwable e) {
                    completed.completeExceptionally(e);
                }
            }, "completing");
            other.start();
            try {
                completed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("complete() did not return while onNext waited", e);
            } finally {
                c.release();
            }
        }, ended::set, () -> done.set(true));
        assertThat(queue.offer(frame(4))).isEqualTo(InboundQueue.Offer.QUEUED);
        assertThat(completed).as("complete() returned while onNext waited").isCompleted();
        assertThat(ended.get()).as("no error reached the application").isNull();
        assertThat(done).as("the completion reached the application after its onNext").isTrue();
    }
}
