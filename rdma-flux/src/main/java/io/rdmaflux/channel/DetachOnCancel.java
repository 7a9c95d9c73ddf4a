package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Forgets the downstream subscriber on cancel, so that a session which outlives a cancelled
 * application for a few seconds does not keep the application's operators alive (Reactive
 * Streams rule 3.13), and releases any chunk still delivered after that.
 *
 * <p>Reactor's {@code onTerminateDetach} swaps in an empty subscriber on cancel, which drops a
 * chunk that was being delivered at that moment without a discard: a receive slot, and the
 * sender's credit with it, were lost for good.
 */
final class DetachOnCancel implements CoreSubscriber<Chunk>, Subscription {

    private volatile CoreSubscriber<? super Chunk> actual;
    private volatile Subscription upstream;
    private final Context context;

    /**
     * The inbound stream's edge: chunks that operators discard are released, and a cancelled
     * subscriber is forgotten. {@code hide()}: a lift over a fuseable source would hand
     * downstream a subscription that must support fusion, which this one does not.
     */
    static Flux<Chunk> edge(Flux<Chunk> chunks) {
        return chunks.doOnDiscard(Chunk.class, Chunk::releaseQuietly)
                .hide()
                .transform(Operators.<Chunk, Chunk>lift((scannable, actual) -> new DetachOnCancel(actual)));
    }

    DetachOnCancel(CoreSubscriber<? super Chunk> actual) {
        this.actual = actual;
        // Taken now: upstream operators ask for it after a cancel too, to find discard hooks.
        this.context = actual.currentContext();
    }

    @Override
    public Context currentContext() {
        return context;
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            CoreSubscriber<? super Chunk> a = actual;
            if (a != null) {
                a.onSubscribe(this);
            }
        }
    }

    @Override
    public void onNext(Chunk chunk) {
        CoreSubscriber<? super Chunk> a = actual;
        if (a == null) {
            chunk.releaseQuietly();
            return;
        }
        // Delivered even if a cancel races this call: operators discard what arrives after
        // their own cancel, and that releases the chunk.
        a.onNext(chunk);
    }

    @Override
    public void onError(Throwable t) {
        CoreSubscriber<? super Chunk> a = actual;
        actual = null;
        if (a != null) {
            a.onError(t);
        }
    }

    @Override
    public void onComplete() {
        CoreSubscriber<? super Chunk> a = actual;
        actual = null;
        if (a != null) {
            a.onComplete();
        }
    }

    @Override
    public void request(long n) {
        Subscription s = upstream;
        if (s != null) {
            s.request(n);
        }
    }

    @Override
    public void cancel() {
        actual = null;
        Subscription s = upstream;
        if (s != null) {
            s.cancel();
        }
    }
}
