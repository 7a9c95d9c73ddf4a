package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.ConnectableFlux;
import reactor.core.publisher.Flux;

/**
 * One stream of chunks given to two (or more) consumers without a copy: each gets a view of
 * every chunk, and the chunk is released when all views are. The stream moves at the pace of the
 * slowest consumer (so memory stays bounded by the upstream's own limits, a receive ring), until
 * one of them goes away (ends, fails or is cancelled): from then on its views are released as
 * they pass, so that the others go on alone. That is what a relay needs: a host whose next host
 * died keeps writing, and one whose disk filled keeps forwarding; and a send sink with several
 * destinations ({@link SendSinks}), one of which is gone. When every consumer is gone the
 * upstream is cancelled: nothing reads a source that no one takes.
 */
final class Tee {

    /** Chunks queued between the upstream and the slower consumer. */
    private static final int PREFETCH = 4;

    private final int branches;
    private final ConnectableFlux<Pair> shared;
    /** Per branch: 1 once it subscribed or went away (the stream starts when all have). */
    private final AtomicIntegerArray present;
    private final AtomicIntegerArray gone;
    private final AtomicInteger goneCount = new AtomicInteger();
    private final AtomicBoolean connected = new AtomicBoolean();
    private volatile Disposable connection;

    Tee(Flux<Chunk> data) {
        this(data, 2);
    }

    /** A tee with {@code branches} consumers (at least one). */
    Tee(Flux<Chunk> data, int branches) {
        if (branches < 1) {
            throw new IllegalArgumentException("a tee needs at least one branch, was " + branches);
        }
        this.branches = branches;
        this.present = new AtomicIntegerArray(branches);
        this.gone = new AtomicIntegerArray(branches);
        this.shared = data.map(c -> new Pair(c, branches)).publish(PREFETCH);
    }

    /** Branch {@code i} (0 to branches - 1): subscribe to it once, or call {@link #gone} for it. */
    Flux<Chunk> branch(int i) {
        Flux<Chunk> views = Flux.<Pair>from(s -> {
            shared.subscribe(s);
            arrived(i);
        }).handle((Pair p, reactor.core.publisher.SynchronousSink<Chunk> sink) -> {
            for (int j = 0; j < branches; j++) {
                if (j != i && gone.get(j) == 1) {
                    p.drop(j);   // that branch will take no more
                }
            }
            Chunk view = p.take(i);
            if (view != null) {
                sink.next(view);
            }
        });
        return views.doOnCancel(() -> gone(i))
                .doOnError(e -> gone(i))
                .doOnComplete(() -> gone(i))
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    /** Branch {@code i} takes nothing more (or never subscribes): the other goes on alone. */
    void gone(int i) {
        if (gone.compareAndSet(i, 0, 1) && goneCount.incrementAndGet() == branches) {
            Disposable c = connection;
            if (c != null) {
                c.dispose();   // no one takes the stream any more: cancel the source
            }
        }
        arrived(i);
    }

    private void arrived(int i) {
        present.set(i, 1);
        for (int j = 0; j < branches; j++) {
            if (present.get(j) == 0) {
                return;
            }
        }
        if (connected.compareAndSet(false, true)) {
            if (goneCount.get() == branches) {
                return;   // every branch went away before the stream started: never open the source
            }
            connection = shared.connect();
            if (goneCount.get() == branches) {
                connection.dispose();   // the last went away while the stream was being connected
            }
        }
    }

    /** A chunk and its views, one per branch; each view goes to its branch or is dropped, exactly once. */
    private static final class Pair {

        private final Chunk chunk;
        private final Chunk[] views;
        private final AtomicIntegerArray claimed;
        private final AtomicInteger left;

        Pair(Chunk chunk, int branches) {
            this.chunk = chunk;
            this.views = new Chunk[branches];
            this.claimed = new AtomicIntegerArray(branches);
            this.left = new AtomicInteger(branches);
            for (int i = 0; i < branches; i++) {
                views[i] = Chunk.of(chunk.buffer().duplicate(), this::viewReleased);
            }
        }

        /** The view for branch {@code i}, or null when it was dropped. */
        Chunk take(int i) {
            return claimed.compareAndSet(i, 0, 1) ? views[i] : null;
        }

        void drop(int i) {
            if (claimed.compareAndSet(i, 0, 1)) {
                views[i].release();
            }
        }

        private void viewReleased() {
            if (left.decrementAndGet() == 0) {
                chunk.release();
            }
        }
    }
}
