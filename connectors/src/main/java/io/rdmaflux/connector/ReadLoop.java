package io.rdmaflux.connector;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The engine of every source: a {@code Flux.create} whose reads run on the options' scheduler,
 * one at a time, whenever the subscriber has demand and a buffer is free.
 *
 * <p>Requests, releases and cancellation only {@linkplain #signal() signal}; a serialized
 * drain on the scheduler does the work (open, read, emit, close), so no blocking call ever runs
 * on the thread that requested or released, and the reader is never used by two threads at
 * once. Buffers come from a pool with a fixed number of permits; a released chunk returns its
 * permit and signals, which is what resumes a source stalled by a slow subscriber.
 */
final class ReadLoop implements Runnable {

    private static final Logger log = Loggers.getLogger(ReadLoop.class);

    private final String what;
    private final Callable<ChunkReader> opener;
    private final SourceOptions options;
    private final FluxSink<Chunk> sink;
    private final BufferPool pool;
    private final AtomicInteger permits;
    private final AtomicInteger wip = new AtomicInteger();

    private volatile boolean disposed;
    private volatile boolean finished;
    private volatile boolean reading;
    private ChunkReader reader;

    private ReadLoop(String what, Callable<ChunkReader> opener, SourceOptions options, FluxSink<Chunk> sink) {
        this.what = what;
        this.opener = opener;
        this.options = options;
        this.sink = sink;
        this.pool = options.pool() != null ? options.pool()
                : new BufferPool("source " + what, options.chunkSize(), options.buffers());
        this.permits = new AtomicInteger(options.permits());
    }

    /**
     * A cold Flux over the resource {@code opener} opens; each subscription opens it afresh.
     *
     * @param what   the source, for messages ("file /a/b", "standard input")
     * @param opener opens the resource; runs on the scheduler, may block
     */
    static Flux<Chunk> flux(String what, Callable<ChunkReader> opener, SourceOptions options) {
        // Flux.create, not Flux.push: only a push-pull sink calls onRequest for every request
        // (a push sink calls it once, with Long.MAX_VALUE), and reads are driven by requests.
        return Flux.create(sink -> {
            ReadLoop loop = new ReadLoop(what, opener, options, sink);
            sink.onRequest(n -> loop.signal());
            sink.onDispose(loop::dispose);
            // Open right away, so that a failure shows before the first request.
            loop.signal();
        }, FluxSink.OverflowStrategy.ERROR);
    }

    private void dispose() {
        disposed = true;
        if (reading && !finished) {
            // A read from a pipe or terminal may wait forever: unblock it from outside.
            ChunkReader r = reader;
            try {
                options.scheduler().schedule(() -> {
                    if (r != null) {
                        r.abort();
                    }
                });
            } catch (Throwable e) {
                log.debug("could not schedule abort of {}: {}", what, e.toString());
            }
        }
        signal();
    }

    private void signal() {
        if (finished) {
            return;
        }
        if (wip.getAndIncrement() == 0) {
            try {
                options.scheduler().schedule(this);
            } catch (Throwable e) {
                // Never leave wip raised: that would stall the source for good.
                wip.set(0);
                finish();
                if (!disposed) {
                    sink.error(ConnectorException.source(ConnectorException.Reason.IO,
                            "cannot read " + what + ": could not schedule the read (" + e + ")", e));
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
            return;
        }
        if (disposed) {
            finish();
            return;
        }
        try {
            if (reader == null) {
                reader = opener.call();
            }
            while (!disposed && sink.requestedFromDownstream() > 0 && permits.get() > 0) {
                Chunk chunk = acquire();
                int n;
                reading = true;
                if (disposed) {
                    // dispose() raises its flag, then looks at ours: had it come between the
                    // loop's check and ours, it saw no read to abort, and this one might block
                    // for good on a silent pipe.
                    reading = false;
                    chunk.release();
                    break;
                }
                try {
                    n = reader.read(chunk.buffer());
                } catch (Throwable t) {
                    chunk.release();
                    throw t;
                } finally {
                    reading = false;
                }
                if (n < 0) {
                    chunk.release();
                    finish();
                    sink.complete();
                    return;
                }
                if (disposed) {
                    chunk.release();
                    break;
                }
                chunk.buffer().flip();
                sink.next(chunk);
            }
            if (disposed) {
                finish();
            }
        } catch (Throwable t) {
            finish();
            if (!disposed) {
                sink.error(IoErrors.source(what, t));
            }
        }
    }

    /** A pooled buffer whose release returns the permit and wakes the loop. */
    private Chunk acquire() {
        permits.decrementAndGet();
        Chunk pooled;
        try {
            pooled = pool.acquire();
        } catch (RuntimeException e) {
            permits.incrementAndGet();
            throw e;
        }
        return Chunk.of(pooled.buffer(), () -> {
            pooled.release();
            permits.incrementAndGet();
            signal();
        });
    }

    private void finish() {
        finished = true;
        ChunkReader r = reader;
        if (r != null) {
            try {
                r.close();
            } catch (Exception e) {
                log.debug("closing {} failed: {}", what, e.toString());
            }
        }
    }
}
