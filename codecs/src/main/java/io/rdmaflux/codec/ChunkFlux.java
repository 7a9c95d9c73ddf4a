package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Building blocks for stages that follow the {@link CodecStage} contract: splitting chunks into
 * blocks without copying, and an ordered parallel map with bounded memory that releases every
 * lease exactly once on complete, error and cancel.
 */
public final class ChunkFlux {

    private ChunkFlux() {
    }

    /**
     * Splits chunks larger than {@code maxBlock} into slices of at most {@code maxBlock} bytes,
     * without copying: the original lease is released once every slice has been released. Empty
     * chunks are released and dropped; smaller chunks pass unchanged.
     */
    public static Flux<Chunk> split(Flux<Chunk> in, int maxBlock) {
        if (maxBlock < 1) {
            throw new IllegalArgumentException("maxBlock must be positive");
        }
        // hide(): fused with a synchronous source (Flux.generate, an endless iterable), the
        // operator would discard on cancel by draining the source to its end, which an endless
        // one never reaches. Unfused, it discards only the 2 chunks it prefetched.
        return in.hide().concatMapIterable(c -> slices(c, maxBlock), 2)
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    private static List<Chunk> slices(Chunk c, int maxBlock) {
        int n;
        try {
            n = c.remaining();
        } catch (RuntimeException e) {
            c.releaseQuietly();
            throw e;
        }
        if (n == 0) {
            c.release();
            return List.of();
        }
        if (n <= maxBlock) {
            return List.of(c);
        }
        ByteBuffer b = c.buffer();
        int count = (n + maxBlock - 1) / maxBlock;
        AtomicInteger left = new AtomicInteger(count);
        Runnable releaseOne = () -> {
            if (left.decrementAndGet() == 0) {
                c.release();
            }
        };
        List<Chunk> out = new ArrayList<>(count);
        for (int off = b.position(); off < b.limit(); off += maxBlock) {
            ByteBuffer s = b.duplicate();
            s.position(off).limit(Math.min(b.limit(), off + maxBlock));
            out.add(Chunk.of(s.slice(), releaseOne));
        }
        return out;
    }

    /**
     * Applies {@code work} to each chunk on {@code scheduler}, up to about {@code parallelism}
     * chunks at once, and emits the results in input order. {@code work} owns its input: it must
     * release it (also when it throws) and return a new lease, or null for no output.
     *
     * <p>Each input starts a task as soon as it arrives; {@code concatMap} with a prefetch of
     * {@code parallelism - 1} keeps at most {@code parallelism} tasks (inputs or finished results)
     * alive, and emits their results in order. A task's result stays inside the task until the
     * consumer takes it, so on cancel or error every task releases exactly what it still holds:
     * its input if it never ran, its result if it finished, or the result of a run in progress
     * once that run ends.
     */
    public static Flux<Chunk> mapOrdered(Flux<Chunk> in, Function<Chunk, Chunk> work, Scheduler scheduler,
                                         int parallelism) {
        return mapOrderedIndexed(in, (c, index) -> work.apply(c), scheduler, parallelism);
    }

    /** Work on one chunk that also gets the chunk's position in its stream: 0, 1, 2, ... */
    @FunctionalInterface
    public interface IndexedWork {
        /** Must release {@code chunk}, also when it throws; returns a new lease, or null for no output. */
        Chunk apply(Chunk chunk, long index);
    }

    /**
     * {@link #mapOrdered}, with each chunk's position in the stream (counted from 0 for every
     * subscription) passed to {@code work}: for stages whose records are numbered.
     */
    public static Flux<Chunk> mapOrderedIndexed(Flux<Chunk> in, IndexedWork work, Scheduler scheduler,
                                                int parallelism) {
        int prefetch = Math.max(1, parallelism - 1);
        return Flux.defer(() -> {
            // Every live task of this subscription, so that cancel and error reach all of them:
            // concatMap does not discard an element that its upstream delivers while it is being
            // cancelled, so its queue alone cannot be trusted to hand every task back.
            Set<Task> live = ConcurrentHashMap.newKeySet();
            AtomicBoolean closed = new AtomicBoolean();
            long[] next = new long[1];
            return in.map(c -> {
                        Task t = Task.start(c, next[0]++, work, scheduler);
                        live.add(t);
                        t.onTaken = live::remove;
                        if (closed.get()) {
                            t.cancel();
                        }
                        return t;
                    })
                    .concatMap(Task::result, prefetch)
                    .doFinally(signal -> {
                        closed.set(true);
                        for (Task t : live) {
                            t.cancel();
                        }
                        live.clear();
                    });
        }).doOnDiscard(Task.class, Task::cancel)
          .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    /** One chunk's work: PENDING -> RUNNING -> DONE -> TAKEN, or CANCELLED from any state before TAKEN. */
    private static final class Task implements Runnable {
        private static final int PENDING = 0;
        private static final int RUNNING = 1;
        private static final int DONE = 2;
        private static final int TAKEN = 3;
        private static final int CANCELLED = 4;

        private final AtomicInteger state = new AtomicInteger(PENDING);
        private final CompletableFuture<Void> finished = new CompletableFuture<>();
        private final Chunk input;
        private final long index;
        private final IndexedWork work;
        private volatile Chunk output;
        volatile java.util.function.Consumer<Task> onTaken = t -> { };

        private Task(Chunk input, long index, IndexedWork work) {
            this.input = input;
            this.index = index;
            this.work = work;
        }

        static Task start(Chunk input, long index, IndexedWork work, Scheduler scheduler) {
            Task t = new Task(input, index, work);
            try {
                scheduler.schedule(t);
            } catch (RuntimeException e) {
                if (t.state.compareAndSet(PENDING, CANCELLED)) {
                    input.releaseQuietly();
                }
                t.finished.completeExceptionally(e);
            }
            return t;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(PENDING, RUNNING)) {
                finished.complete(null);
                return;
            }
            Chunk out;
            try {
                out = work.apply(input, index);
            } catch (Throwable e) {
                state.compareAndSet(RUNNING, CANCELLED);
                finished.completeExceptionally(e);
                return;
            }
            output = out;
            if (!state.compareAndSet(RUNNING, DONE) && out != null) {
                output = null;
                out.releaseQuietly();
            }
            finished.complete(null);
        }

        /**
         * The result, taken from the task only when the consumer requests it: until then it stays
         * in the task, where cancel finds and releases it.
         *
         * <p>A small Mono of its own rather than {@code Mono.create}: there a request that races
         * the registration of {@code onRequest} is lost (the sink reads the request consumer
         * before it records the request, the registration reads the state before the request
         * is recorded), and the ordered stream stalls for good; and a value offered while a
         * cancel lands is dropped without a discard.
         */
        Mono<Chunk> result() {
            return new Mono<>() {
                @Override
                public void subscribe(CoreSubscriber<? super Chunk> actual) {
                    AtomicBoolean asked = new AtomicBoolean();
                    AtomicBoolean over = new AtomicBoolean();
                    actual.onSubscribe(new Subscription() {
                        @Override
                        public void request(long n) {
                            if (n > 0 && asked.compareAndSet(false, true)) {
                                finished.whenComplete((v, error) -> deliver(actual, over, error));
                            }
                        }

                        @Override
                        public void cancel() {
                            over.set(true);
                            Task.this.cancel();
                        }
                    });
                }
            };
        }

        private void deliver(CoreSubscriber<? super Chunk> actual, AtomicBoolean over, Throwable error) {
            if (error != null) {
                if (over.compareAndSet(false, true)) {
                    actual.onError(error);
                }
                return;
            }
            Chunk out = take();
            if (!over.compareAndSet(false, true)) {
                // Cancelled meanwhile: the task may have handed its result over already.
                if (out != null) {
                    out.releaseQuietly();
                }
                return;
            }
            if (out != null) {
                actual.onNext(out);
            }
            actual.onComplete();
        }

        private Chunk take() {
            if (state.compareAndSet(DONE, TAKEN)) {
                Chunk out = output;
                output = null;
                onTaken.accept(this);
                return out;
            }
            return null;
        }

        void cancel() {
            while (true) {
                int s = state.get();
                if (s == PENDING && state.compareAndSet(PENDING, CANCELLED)) {
                    input.releaseQuietly();
                    return;
                }
                if (s == RUNNING && state.compareAndSet(RUNNING, CANCELLED)) {
                    return; // the run releases its result when it ends
                }
                if (s == DONE && state.compareAndSet(DONE, CANCELLED)) {
                    Chunk out = output;
                    output = null;
                    if (out != null) {
                        out.releaseQuietly();
                    }
                    return;
                }
                if (s == TAKEN || s == CANCELLED) {
                    return;
                }
            }
        }
    }
}
