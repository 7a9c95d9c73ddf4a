package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.randomBytes;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;

/**
 * What the command connector tests feed a command: seeded chunks from a small pool of their own,
 * generated only as requested, counting what was handed on and noting a cancel.
 */
final class Upstream {

    static final int CHUNK = 64 * 1024;

    final BufferPool pool = new BufferPool("upstream", CHUNK, 8);
    final AtomicBoolean cancelled = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();

    /** {@code chunks} chunks of seeded bytes from the pool, generated as requested. */
    Flux<Chunk> chunks(int chunks) {
        byte[] data = randomBytes(CHUNK, 7);
        return Flux.range(0, chunks).map(i -> {
            Chunk c = pool.acquire();
            c.buffer().put(data).flip();
            sent.addAndGet(CHUNK);
            return c;
        }).doOnCancel(() -> cancelled.set(true));
    }

    /** Waits (bounded) until every chunk has come back to the pool. */
    void awaitReleased() {
        await("upstream chunks released", () -> pool.outstanding() == 0);
    }
}
