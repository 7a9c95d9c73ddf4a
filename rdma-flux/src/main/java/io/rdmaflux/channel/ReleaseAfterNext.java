package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Turns a stream of chunk leases into plain buffers that live for one {@code onNext}: it
 * passes the buffer down and releases the lease as soon as the downstream returns.
 */
final class ReleaseAfterNext implements CoreSubscriber<Chunk>, Subscription {

    private final CoreSubscriber<? super ByteBuffer> actual;
    private Subscription upstream;

    ReleaseAfterNext(CoreSubscriber<? super ByteBuffer> actual) {
        this.actual = actual;
    }

    @Override
    public Context currentContext() {
        return actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            actual.onSubscribe(this);
        }
    }

    @Override
    public void onNext(Chunk chunk) {
        try {
            actual.onNext(chunk.buffer());
        } finally {
            chunk.release();
        }
    }

    @Override
    public void onError(Throwable t) {
        actual.onError(t);
    }

    @Override
    public void onComplete() {
        actual.onComplete();
    }

    @Override
    public void request(long n) {
        upstream.request(n);
    }

    @Override
    public void cancel() {
        upstream.cancel();
    }
}
