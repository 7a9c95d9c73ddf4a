package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.StreamChecksum;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The data of one receiving stream: DATA frames into a bounded queue that the application drains
 * at its own pace, their count and checksum against the sender's END, and credits back to the
 * sender as the application releases slots. Kept apart from {@link ReceiverSession}, which
 * decides the stream's outcome; this changes only with the credit rules and the queue.
 */
final class InboundQueue {

    /**
     * What became of a DATA frame offered to the queue: queued; refused, which the stream must
     * fail for (the sender broke the credit rule, or sent DATA after its END); or dropped,
     * because the application cancelled its subscription and wants no more.
     */
    enum Offer { QUEUED, REFUSED, DROPPED }

    /** How long a completion waits out a failure being emitted on another thread. */
    private static final Duration EMIT_WAIT = Duration.ofSeconds(2);

    private final StreamChecksum checksum = new StreamChecksum();
    private final AtomicInteger creditsToReturn = new AtomicInteger();
    /** DATA frames taken whose credit has not gone back to the sender yet. */
    private final AtomicInteger unreturned = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    /** The stream's first failure, set before it is emitted: an emission that blocked fail() delivers it. */
    private final AtomicReference<RdmaFluxException> pendingFailure = new AtomicReference<>();
    /** Set when the stream is verified whole, before the completion is emitted: an emission that blocked complete() delivers it. */
    private final AtomicBoolean pendingComplete = new AtomicBoolean();
    private final int creditBatch;
    private final Sinks.Many<Chunk> inbound;
    private final BooleanSupplier creditsWanted;
    private final IntConsumer grant;

    /**
     * A queue for a ring of {@code slots}; credits go to {@code grant} in batches while
     * {@code creditsWanted} says the stream still takes data.
     */
    InboundQueue(int slots, BooleanSupplier creditsWanted, IntConsumer grant) {
        this.creditsWanted = creditsWanted;
        this.grant = grant;
        // Credits bound what can arrive to the ring size, so this queue never overflows
        // unless the sender breaks the credit rule.
        this.inbound = Sinks.many().unicast().onBackpressureBuffer(Queues.<Chunk>get(slots + 1).get());
        this.creditBatch = Math.max(1, slots / 4);
    }

    /**
     * Counts a DATA frame and queues it; its slot's release returns a credit. A frame that is
     * not queued is released here: a REFUSED one must fail the stream, as the checksum counted
     * it and END would otherwise verify with the frame missing.
     */
    Offer offer(Chunk payload) {
        checksum.update(payload.buffer());
        unreturned.incrementAndGet();
        Chunk lease = Chunk.of(payload.buffer(), () -> {
            payload.release();
            returnCredit();
        });
        switch (emit(lease)) {
            case OK:
                return Offer.QUEUED;
            case FAIL_CANCELLED:
                // The application cancelled its subscription: frames still in flight have
                // nowhere to go, and the stream's outcome is the handler's to decide.
                lease.releaseQuietly();
                return Offer.DROPPED;
            case FAIL_OVERFLOW:
                // The application reads, but more frames came than credits: the sender broke the rule.
            case FAIL_ZERO_SUBSCRIBER:
                // The same before the application subscribed: still the sender's fault, not a cancel.
            case FAIL_TERMINATED:
                // The data ended already: with a verified END (DATA after it breaks the
                // protocol), or with the stream's failure (failing again changes nothing).
            case FAIL_NON_SERIALIZED:
                // Another thread's emission outlasted emit's wait: the stream is failing anyway.
            default:
                // Whatever the result, a frame not queued fails the stream unless the
                // application cancelled; no credit goes back for it.
                unreturned.decrementAndGet();
                payload.releaseQuietly();
                return Offer.REFUSED;
        }
    }

    /**
     * Emits one frame. FAIL_NON_SERIALIZED only means that another thread is emitting the
     * stream's failure this moment (DATA arrives on the transport's one thread): wait that out,
     * bounded, and report what the queue says then.
     */
    private Sinks.EmitResult emit(Chunk lease) {
        long deadline = System.nanoTime() + EMIT_WAIT.toNanos();
        Sinks.EmitResult emitted = inbound.tryEmitNext(lease);
        while (emitted == Sinks.EmitResult.FAIL_NON_SERIALIZED && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
            emitted = inbound.tryEmitNext(lease);
        }
        // A failure that could not be emitted while this emission ran (fail's bound) ends the data now.
        RdmaFluxException failed = pendingFailure.get();
        if (failed != null) {
            inbound.tryEmitError(failed);
        } else if (pendingComplete.get()) {
            inbound.tryEmitComplete();   // likewise a completion (complete's bound)
        }
        return emitted;
    }

    /** A slot came back: credits go to the sender in batches to keep control traffic small. */
    private void returnCredit() {
        int n = creditsToReturn.incrementAndGet();
        if (n >= creditBatch && creditsWanted.getAsBoolean()) {
            int batch = creditsToReturn.getAndSet(0);
            if (batch > 0) {
                unreturned.addAndGet(-batch);
                grant.accept(batch);
            }
        }
    }

    /**
     * Checks the sender's END against what arrived.
     *
     * @throws RdmaFluxException TRUNCATED or CHECKSUM when they differ
     */
    void verify(ControlFrames.End end) {
        if (end.bytes() != checksum.bytes()) {
            throw new RdmaFluxException(ErrorCode.TRUNCATED, "stream incomplete: the sender sent " + end.bytes()
                    + " bytes but " + checksum.bytes() + " arrived");
        }
        if (end.crc() != checksum.crc()) {
            throw new RdmaFluxException(ErrorCode.CHECKSUM, "checksum mismatch: the " + checksum.bytes()
                    + " bytes received differ from those sent");
        }
    }

    /**
     * The stream was verified whole: the application's data completes. As in {@link #fail},
     * another thread's emission in progress is waited out, bounded; one that outlasts the bound
     * (an application's onNext that blocks) delivers the completion itself as it returns.
     */
    void complete() {
        pendingComplete.set(true);
        // Not emitComplete(busyLooping): past its bound it threw EmissionException at the caller.
        long deadline = System.nanoTime() + EMIT_WAIT.toNanos();
        while (inbound.tryEmitComplete() == Sinks.EmitResult.FAIL_NON_SERIALIZED && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        // Still FAIL_NON_SERIALIZED at the bound: left to the emission in progress (pendingComplete).
    }

    /**
     * The stream failed: the application's data ends with {@code error} unless it is over
     * already. Another thread's emission in progress is waited out, bounded ({@link #EMIT_WAIT});
     * one that outlasts the bound (an application's onNext that blocks,
     * perhaps until this very failure is reported) delivers the failure itself as it returns
     * ({@link #emit}), so the data still ends with it, right after that frame.
     */
    void fail(RdmaFluxException error) {
        pendingFailure.compareAndSet(null, error);
        // Not emitError(): on a stream over already it would hand the failure to onErrorDropped,
        // a loud ERROR; here that failure is reported through result() alone.
        long deadline = System.nanoTime() + EMIT_WAIT.toNanos();
        while (inbound.tryEmitError(error) == Sinks.EmitResult.FAIL_NON_SERIALIZED && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        // Still FAIL_NON_SERIALIZED at the bound: left to the emission in progress (pendingFailure).
    }

    /** The application's one subscription to the data; a second gets {@code failure} or an error saying so. */
    Flux<Chunk> take(Supplier<RdmaFluxException> failure) {
        return Flux.defer(() -> {
            if (!subscribed.compareAndSet(false, true)) {
                RdmaFluxException failed = failure.get();
                return Flux.error(failed != null ? failed
                        : new IllegalStateException("an inbound stream can be subscribed to only once"));
            }
            return inbound.asFlux();
        });
    }

    /** Whether the application has subscribed to the data. */
    boolean reading() {
        return subscribed.get();
    }

    /** If the application never subscribed, nobody will release what is queued: drain it here. */
    void releaseUnclaimed() {
        if (subscribed.compareAndSet(false, true)) {
            inbound.asFlux().subscribe(Chunk::releaseQuietly, e -> { });
        }
    }

    long bytes() {
        return checksum.bytes();
    }

    /** DATA frames taken whose credit has not gone back yet. */
    int creditsInFlight() {
        return Math.max(0, unreturned.get());
    }
}
