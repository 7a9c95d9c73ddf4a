package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.ConnectableFlux;
import reactor.core.publisher.Flux;

/**
 * One stream of chunks given to two consumers without a copy: each gets a view of every chunk,
 * and the chunk is released when both views are. The stream moves at the pace of the slower
 * consumer (so memory stays bounded by the upstream's own limits, a receive ring), until one of
 * them goes away (ends, fails or is cancelled): from then on its views are released as they
 * pass, so that the other goes on alone. That is what a relay needs: a host whose next host
 * died keeps writing, and one whose disk filled keeps forwarding.
 */
final class Tee {

    /** Chunks queued between the upstream and the slower consumer. */
    private static final int PREFETCH = 4;

    private final ConnectableFlux<Pair> shared;
    /** Per branch: 1 once it subscribed or went away (the stream starts when both have). */
    private final AtomicIntegerArray present = new AtomicIntegerArray(2);
    private final AtomicIntegerArray gone = new AtomicIntegerArray(2);
    private final AtomicBoolean connected = new AtomicBoolean();

    Tee(Flux<Chunk> data) {
        this.shared = data.map(Pair::new).publish(PREFETCH);
    }

    /** Branch {@code i} (0 or 1): subscribe to it once, or call {@link #gone} for it. */
    Flux<Chunk> branch(int i) {
        Flux<Chunk> views = Flux.<Pair>from(s -> {
            shared.subscribe(s);
            arrived(i);
        }).handle((Pair p, reactor.core.publisher.SynchronousSink<Chunk> sink) -> {
            if (gone.get(1 - i) == 1) {
                p.drop(1 - i);   // the other branch will take no more
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
        gone.set(i, 1);
        arrived(i);
    }

    private void arrived(int i) {
        present.set(i, 1);
        if (present.get(0) == 1 && present.get(1) == 1 && connected.compareAndSet(false, true)) {
            shared.connect();
        }
    }

    /** A chunk and its two views; each view goes to one branch or is dropped, exactly once. */
    private static final class Pair {

        private final Chunk chunk;
        private final Chunk[] views = new Chunk[2];
        private final AtomicIntegerArray claimed = new AtomicIntegerArray(2);
        private final AtomicInteger left = new AtomicInteger(2);

        Pair(Chunk chunk) {
            this.chunk = chunk;
            for (int i = 0; i < 2; i++) {
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
