package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The engine of every sink: a subscriber that queues at most {@code prefetch} chunks and
 * writes them on the options' scheduler in a serialized drain, one request per chunk written.
 *
 * <p>Everything that touches the target (open, write, commit, abort) happens in the drain, so
 * a cancel can never race a write. Arriving chunks, completion, errors and cancel only queue
 * or flag, then signal. The one exception: an error or cancel that finds the drain inside a
 * write or commit, which may wait indefinitely on a pipe, asks the target to
 * {@linkplain WriteTarget#interrupt() interrupt} it (on the scheduler, never on the signalling
 * thread); the drain then sees the flag and gives up.
 *
 * <p>A loop is one of this process's {@link OpenWrites} from its subscription until it has
 * committed or cleaned up, so that the process's end waits for that clean-up.
 */
final class WriteLoop extends BaseSubscriber<Chunk> implements Runnable {

    private static final Logger log = Loggers.getLogger(WriteLoop.class);

    private final WriteTarget target;
    private final SinkOptions options;
    private final MonoSink<SinkResult> result;
    private final Queue<Chunk> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();

    private volatile boolean subscribed;
    /** The data completed; an error never raises it (see {@link #hookOnError}). */
    private volatile boolean upstreamDone;
    private volatile Throwable upstreamError;
    private volatile boolean cancelled;
    private volatile boolean finished;
    private volatile boolean writing;
    /** Inside {@link #commit}, which an exit waits for longer than for other clean-ups. */
    private volatile boolean committing;
    private final AtomicBoolean interrupted = new AtomicBoolean();
    /** Counted down once the target is committed or cleaned up (or was never opened). */
    private final CountDownLatch ended = new CountDownLatch(1);

    // Drain state.
    private boolean opened;
    private boolean initialRequested;
    private long bytes;

    private WriteLoop(WriteTarget target, SinkOptions options, MonoSink<SinkResult> result) {
        this.target = target;
        this.options = options;
        this.result = result;
    }

    /** A Mono that, when subscribed, opens {@code target} and writes {@code data} to it. */
    static Mono<SinkResult> write(WriteTarget target, Publisher<Chunk> data, SinkOptions options) {
        return Mono.create(sink -> {
            WriteLoop loop = new WriteLoop(target, options, sink);
            sink.onCancel(loop::abandon);
            OpenWrites.add(loop);
            loop.signal();
            Flux.from(data).doOnDiscard(Chunk.class, Chunk::releaseQuietly).subscribe(loop);
        });
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        subscribed = true;
        signal();
    }

    @Override
    protected void hookOnNext(Chunk chunk) {
        queue.offer(chunk);
        signal();
    }

    @Override
    protected void hookOnComplete() {
        upstreamDone = true;
        signal();
    }

    @Override
    protected void hookOnError(Throwable t) {
        // Not upstreamDone: the drain reads the error, then "done", and an error landing
        // between the two reads would have looked like a completion and been committed.
        upstreamError = t;
        interruptIfWriting();
        signal();
    }

    /** Cancelled by the Mono's subscriber, or by the process ending ({@link OpenWrites}). */
    void abandon() {
        cancelled = true;
        interruptIfWriting();
        signal();
    }

    /**
     * Called after raising a flag the drain checks after raising {@code writing}: either the
     * drain sees the flag before it writes, or this sees the write and interrupts it.
     */
    private void interruptIfWriting() {
        if (writing && interrupted.compareAndSet(false, true)) {
            try {
                options.scheduler().schedule(target::interrupt);
            } catch (Throwable e) {
                log.debug("could not schedule the interrupt of {}: {}", target.describe(), e.toString());
            }
        }
    }

    /** Waits up to {@code nanos} until the target is committed or cleaned up; true if it is. */
    boolean awaitCleanUp(long nanos) {
        try {
            return ended.await(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The output, for messages. */
    String describe() {
        return target.describe();
    }

    /** Whether the target is committing (renaming, syncing) right now. */
    boolean committing() {
        return committing;
    }

    /** The target is committed or cleaned up: nothing is left for the process's end to wait for. */
    private void ended() {
        OpenWrites.remove(this);
        ended.countDown();
    }

    /** Whether the stream failed or was cancelled, so that writing on is pointless. */
    private boolean stopped() {
        return cancelled || upstreamError != null;
    }

    private void signal() {
        if (wip.getAndIncrement() == 0) {
            try {
                options.scheduler().schedule(this);
            } catch (Throwable e) {
                // No thread to write on: give up here, without blocking (no abort possible),
                // and never leave wip raised, which would stall the sink for good.
                wip.set(0);
                if (!finished) {
                    finished = true;
                    cancel();
                    releaseQueued();
                    ended();
                    result.error(ConnectorException.sink(ConnectorException.Reason.IO,
                            "cannot write " + target.describe() + ": could not schedule the write (" + e + ")", e));
                } else {
                    releaseQueued();
                }
            }
        }
    }

    @Override
    public void run() {
        int missed = 1;
        for (;;) {
            step();
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    private void step() {
        if (finished) {
            releaseQueued();
            return;
        }
        if (cancelled) {
            giveUp();
            return;
        }
        if (!opened) {
            try {
                target.open();
                opened = true;
            } catch (Throwable e) {
                fail(e, true);
                return;
            }
        }
        if (subscribed && !initialRequested) {
            initialRequested = true;
            request(options.prefetch());
        }
        for (;;) {
            if (cancelled) {
                giveUp();
                return;
            }
            Throwable error = upstreamError;
            if (error != null) {
                // Chunks still queued are not written: the output is abandoned anyway.
                fail(error, false);
                return;
            }
            boolean done = upstreamDone;
            Chunk chunk = queue.poll();
            if (chunk == null) {
                if (done) {
                    commit();
                }
                return;
            }
            writing = true;
            if (stopped()) {
                writing = false;
                chunk.release();
                continue;
            }
            ByteBuffer b = chunk.buffer();
            int n = b.remaining();
            Throwable failure = null;
            try {
                target.write(b);
                bytes += n;
            } catch (Throwable e) {
                failure = e;
            }
            writing = false;
            if (failure != null) {
                chunk.releaseQuietly();
                failWriting(failure);
                return;
            }
            chunk.release();
            request(1);
        }
    }

    private void commit() {
        // Raised before cancelled is read, as abandon raises cancelled before an exit reads
        // this: either the cancel is seen here, or the exit sees the commit and waits for it.
        committing = true;
        try {
            commitOnce();
        } finally {
            committing = false;
        }
    }

    private void commitOnce() {
        writing = true;
        if (cancelled) {
            writing = false;
            giveUp();
            return;
        }
        if (upstreamError != null) {
            // Completion and error exclude each other (Reactive Streams 1.7); a second guard.
            writing = false;
            fail(upstreamError, false);
            return;
        }
        String location = null;
        Throwable failure = null;
        try {
            location = target.commit();
        } catch (Throwable e) {
            failure = e;
        }
        writing = false;
        if (failure != null) {
            failWriting(failure);
        } else {
            finished = true;
            ended();
            result.success(new SinkResult(bytes, location, target.exitStatus()));
        }
    }

    /** A write or commit failed: because it was interrupted (say so), or on its own. */
    private void failWriting(Throwable e) {
        if (cancelled) {
            giveUp();
        } else if (upstreamError != null) {
            fail(upstreamError, false);
        } else {
            fail(e, true);
        }
    }

    /** Cancelled by the Mono's subscriber: stop, clean up, say nothing. */
    private void giveUp() {
        finished = true;
        cancel();
        releaseQueued();
        String note = target.abort();
        ended();
        log.debug("write to {} cancelled: {}", target.describe(), note);
    }

    /**
     * Fails the result, after cleaning up.
     *
     * @param own whether the sink itself failed (I/O), rather than the data it was given
     */
    private void fail(Throwable e, boolean own) {
        finished = true;
        String note = target.abort();
        ended();
        // Report before cancelling upstream, so that the channel tells the peer this reason
        // rather than "receiver cancelled the stream".
        // A target may throw a RdmaFluxException to choose the code (a malformed tree stream).
        result.error(own && !(e instanceof RdmaFluxException) ? ownFailure(e, note) : upstreamFailure(e, note));
        cancel();
        releaseQueued();
    }

    private ConnectorException ownFailure(Throwable e, String note) {
        if (e instanceof ConnectorException ce) {
            // The target said it all already (a command's status, say).
            return note.isEmpty() ? ce : ce.withMessage(ce.getMessage() + "; " + note);
        }
        ConnectorException.Reason reason = IoErrors.classify(e);
        return ConnectorException.sink(reason, "cannot write " + target.describe() + ": "
                + IoErrors.phrase(reason, e) + (note.isEmpty() ? "" : "; " + note), e);
    }

    /** The upstream's error with its code kept and what became of the output appended. */
    private static RdmaFluxException upstreamFailure(Throwable e, String note) {
        RdmaFluxException pe = RdmaFluxException.wrap(e, ErrorCode.INTERNAL);
        if (note.isEmpty()) {
            return pe;
        }
        String message = pe.getMessage() + "; " + note;
        if (pe instanceof ConnectorException ce) {
            return ce.withMessage(message);
        }
        return new RdmaFluxException(pe.code(), message, e);
    }

    private void releaseQueued() {
        Chunk c;
        while ((c = queue.poll()) != null) {
            c.releaseQuietly();
        }
    }
}
