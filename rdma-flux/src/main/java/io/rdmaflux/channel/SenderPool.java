package io.rdmaflux.channel;

import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameHandler;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import reactor.core.Disposable;

/**
 * Connections kept between streams, for senders that send many streams to the same receivers,
 * as reactor-netty's {@code ConnectionProvider} keeps HTTP connections. A sender given a pool
 * ({@link FluxSender#pool(SenderPool)}) offers the receiver to keep its connection after each
 * stream that ends well; a receiver that agrees keeps it too, and the sender's next stream to
 * the same receiver (same address, transport, options and key) goes on it with a NEXT frame
 * instead of a connect and a handshake, under fresh keys ({@code docs/protocol.md}, "Kept
 * connections"). A stream that fails closes its own connection only. An idle connection is closed
 * after {@link #maxIdleTime}, when more than {@link #maxIdlePerRemote} would wait for one
 * receiver, when the receiver closed it (its keep-alive), and when the pool is disposed; one
 * found closed as a stream begins is replaced by a new connection before any of the stream's
 * data was asked for.
 *
 * <pre>{@code
 * SenderPool pool = SenderPool.create();
 * FluxSender sender = FluxSender.create().host("store").port(7691).key(secret).pool(pool);
 * for (ByteBuffer item : items) {
 *     sender.send(Mono.just(item)).block();
 * }
 * pool.dispose();
 * }</pre>
 *
 * <p>Thread-safe; share one pool between all senders of a service. {@link Transports#shutdown}
 * disposes every pool.
 */
public final class SenderPool implements Disposable {

    /** Default of the most idle connections kept per receiver. */
    public static final int DEFAULT_MAX_IDLE_PER_REMOTE = 8;
    /**
     * Default of how long a connection is kept idle: below a receiver's default keep-alive
     * ({@link FluxReceiver#DEFAULT_KEEP_ALIVE}), so that the sender usually lets go first.
     */
    public static final Duration DEFAULT_MAX_IDLE_TIME = Duration.ofSeconds(20);

    /** Every pool not yet disposed, for {@link Transports#shutdown}; weakly, so that a pool dropped undisposed can go. */
    private static final Set<SenderPool> LIVE = java.util.Collections.synchronizedSet(
            java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

    private final int maxIdlePerRemote;
    private final Duration maxIdleTime;
    private final Map<Object, Deque<KeptConnection>> idle = new ConcurrentHashMap<>();
    private volatile boolean disposed;

    private SenderPool(int maxIdlePerRemote, Duration maxIdleTime) {
        this.maxIdlePerRemote = maxIdlePerRemote;
        this.maxIdleTime = maxIdleTime;
    }

    /** A pool with the defaults: {@value #DEFAULT_MAX_IDLE_PER_REMOTE} idle connections per receiver, 20 s idle. */
    public static SenderPool create() {
        return create(DEFAULT_MAX_IDLE_PER_REMOTE, DEFAULT_MAX_IDLE_TIME);
    }

    /**
     * A pool that keeps at most {@code maxIdlePerRemote} idle connections (at least 1) per
     * receiver, each for at most {@code maxIdleTime} (positive).
     */
    public static SenderPool create(int maxIdlePerRemote, Duration maxIdleTime) {
        SenderPool pool = new SenderPool(Check.atLeast(maxIdlePerRemote, 1, "maxIdlePerRemote"),
                Check.positive(maxIdleTime, "maxIdleTime"));
        LIVE.add(pool);
        return pool;
    }

    /** The most idle connections kept per receiver. */
    public int maxIdlePerRemote() {
        return maxIdlePerRemote;
    }

    /** How long a connection is kept idle. */
    public Duration maxIdleTime() {
        return maxIdleTime;
    }

    /** Connections idle in this pool now, over all receivers. */
    public int idleConnections() {
        return idle.values().stream().mapToInt(d -> (int) d.stream().filter(KeptConnection::isIdle).count()).sum();
    }

    /** An idle connection to {@code remote}, taken for a stream; null when none is idle. */
    KeptConnection.Lease take(Object remote) {
        Deque<KeptConnection> waiting = idle.get(remote);
        if (waiting == null) {
            return null;
        }
        KeptConnection c;
        // The most recently used first: it is the least likely to have expired on the receiver.
        while ((c = waiting.pollLast()) != null) {
            KeptConnection.Lease lease = c.take();
            if (lease != null) {
                return lease;
            }
        }
        return null;
    }

    /** What a sender's idle connection to {@code remote} does: back into this pool, out when it ends. */
    KeptConnection.Idle idleFor(Object remote) {
        return new KeptConnection.Idle() {
            @Override
            public void onKept(KeptConnection kept) {
                Deque<KeptConnection> waiting = idle.computeIfAbsent(remote, r -> new ConcurrentLinkedDeque<>());
                if (disposed || waiting.size() >= maxIdlePerRemote) {
                    kept.close();
                    return;
                }
                waiting.addLast(kept);
                kept.expireAfter(maxIdleTime);
                if (disposed) {
                    // Disposed meanwhile: its sweep may have missed this one.
                    kept.close();
                }
            }

            @Override
            public FrameHandler onFrame(KeptConnection kept, FrameType type) {
                // A receiver says nothing between streams: a frame now means the connection is
                // not in the state we think (a late frame of the last stream). Not worth keeping.
                return null;
            }

            @Override
            public void onGone(KeptConnection kept) {
                Deque<KeptConnection> waiting = idle.get(remote);
                if (waiting != null) {
                    waiting.remove(kept);
                }
            }
        };
    }

    /** Closes every idle connection; streams running now close theirs when they end. */
    @Override
    public void dispose() {
        disposed = true;
        LIVE.remove(this);
        for (Deque<KeptConnection> waiting : idle.values()) {
            KeptConnection c;
            while ((c = waiting.poll()) != null) {
                c.close();
            }
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /** Disposes every pool (for {@link Transports#shutdown}). */
    static void disposeAll() {
        List<SenderPool> pools;
        synchronized (LIVE) {
            pools = List.copyOf(LIVE);
        }
        for (SenderPool pool : pools) {
            pool.dispose();
        }
    }
}
