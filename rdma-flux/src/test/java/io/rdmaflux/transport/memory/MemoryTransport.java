package io.rdmaflux.transport.memory;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;

/**
 * An in-process transport for unit tests of the protocol engine. Each side of a pair has its
 * own delivery thread and its own fixed receive ring, into which data frames are copied, so
 * the credit rule is enforced exactly as a real transport must. An optional {@link Tamper}
 * sees every frame before delivery, to drop, alter or cut connections in fault tests.
 *
 * <p>Listeners live in a per-instance registry keyed by port; this is not a network.
 */
public final class MemoryTransport implements Transport {

    /** Sees a frame on its way from one side to the other; may change or drop it. */
    @FunctionalInterface
    public interface Tamper {
        /**
         * @param fromSender whether the frame travels from the connecting side to the listener
         * @param type       the frame type
         * @param payload    a private copy of the payload, which may be modified
         * @return what to do with the frame
         */
        Verdict inspect(boolean fromSender, FrameType type, ByteBuffer payload);
    }

    /** What becomes of an inspected frame. */
    public enum Verdict {
        DELIVER, DROP, CUT_CONNECTION,
        /**
         * Delivers the frame, then waits (bounded) until the peer has closed the connection and
         * this side has processed that close, before the sending call returns: the fastest peer
         * there can be, for races between a last frame and the sender's own bookkeeping.
         */
        DELIVER_AND_AWAIT_PEER_CLOSE,
        /**
         * Delivers the frame, then waits (bounded) until a frame of the peer's has arrived here
         * and this side has handled it, before the sending call returns: a peer that answers a
         * last frame before this side has done what follows it (a receiver's END_ACK answered by
         * the next stream's NEXT before the receiver has let its connection go idle). The frame
         * must be sent from a thread other than this side's delivery thread.
         */
        DELIVER_AND_AWAIT_PEER_FRAME
    }

    private final Map<Integer, Listener> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(40000);
    private final AtomicInteger slotsInUse = new AtomicInteger();
    private volatile Tamper tamper = (f, t, p) -> Verdict.DELIVER;
    private volatile int ringRoom;

    /** Installs a frame inspector for fault injection. */
    public MemoryTransport tamper(Tamper tamper) {
        this.tamper = tamper;
        return this;
    }

    /**
     * Gives each receive ring {@code extra} slots beyond the credits its HELLO grants, as RDMA's
     * shared ring keeps receives for control frames that a DATA frame may take: a sender beyond
     * its credits then gets past the transport, and the stream's own queue must refuse it.
     */
    public MemoryTransport ringRoom(int extra) {
        this.ringRoom = extra;
        return this;
    }

    /** Receive slots leased across all connections of this transport; zero when nothing leaks. */
    public int slotsInUse() {
        return slotsInUse.get();
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options) {
        return Mono.fromCallable(() -> {
            Listener l = listeners.get(address.getPort());
            if (l == null) {
                throw new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to memory:" + address.getPort()
                        + ": connection refused (is the receiver running?)");
            }
            Side client = new Side("memory client", options, true);
            Side server = new Side("memory server", l.options, false);
            client.peer = server;
            server.peer = client;
            l.acceptor.accept(server);
            return client;
        });
    }

    @Override
    public Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                        Consumer<FrameConnection> acceptor) {
        return Mono.fromCallable(() -> {
            int port = address.getPort() == 0 ? nextPort.incrementAndGet() : address.getPort();
            Listener l = new Listener(port, options, acceptor);
            if (listeners.putIfAbsent(port, l) != null) {
                throw new RdmaFluxException(ErrorCode.CONNECT, "cannot listen on memory:" + port + ": address already in use");
            }
            return l;
        });
    }

    private final class Listener implements TransportServer {
        final int port;
        final TransportOptions options;
        final Consumer<FrameConnection> acceptor;
        volatile boolean disposed;
        final reactor.core.publisher.Sinks.Empty<Void> released = reactor.core.publisher.Sinks.empty();

        Listener(int port, TransportOptions options, Consumer<FrameConnection> acceptor) {
            this.port = port;
            this.options = options;
            this.acceptor = acceptor;
        }

        @Override
        public InetSocketAddress address() {
            return InetSocketAddress.createUnresolved("memory", port);
        }

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public void dispose() {
            disposed = true;
            listeners.remove(port, this);
            released.tryEmitEmpty();
        }

        @Override
        public Mono<Void> onDispose() {
            return released.asMono();
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }

    /** One end of an in-memory pair. Frames sent here are delivered on the peer's thread. */
    private final class Side implements FrameConnection {
        final String name;
        final TransportOptions options;
        final boolean isClient;
        final BufferPool ring;
        final ExecutorService thread;
        final AtomicBoolean closed = new AtomicBoolean();
        final reactor.core.publisher.Sinks.Empty<Void> closedSignal = reactor.core.publisher.Sinks.empty();
        volatile Side peer;
        volatile FrameHandler handler;
        volatile boolean dataAccepted;
        /** Frames this side has handled, for {@link Verdict#DELIVER_AND_AWAIT_PEER_FRAME}. */
        final java.util.concurrent.atomic.AtomicLong framesHandled = new java.util.concurrent.atomic.AtomicLong();

        Side(String name, TransportOptions options, boolean isClient) {
            this.name = name;
            this.options = options;
            this.isClient = isClient;
            this.ring = new BufferPool(name + "-ring", options.frameSize(), options.receiveSlots() + ringRoom);
            this.thread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }

        /** Frames that arrived before start(); replayed on this side's thread. */
        final java.util.ArrayDeque<Runnable> early = new java.util.ArrayDeque<>();

        @Override
        public void start(FrameHandler handler) {
            runOn(this, () -> {
                this.handler = handler;
                while (!early.isEmpty()) {
                    early.poll().run();
                }
            }, () -> { });
        }

        @Override
        public void acceptData() {
            dataAccepted = true;
        }

        @Override
        public boolean canIdle() {
            return true;
        }

        @Override
        public void idle() {
            dataAccepted = false;
            ring.trim();
        }

        @Override
        public void sendControl(FrameType type, ByteBuffer payload) {
            ByteBuffer copy = ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
            transmit(type, copy, null);
        }

        @Override
        public void sendData(Chunk payload) {
            ByteBuffer copy = ByteBuffer.allocate(payload.remaining()).put(payload.buffer().duplicate()).flip();
            transmit(FrameType.DATA, copy, payload);
        }

        private void transmit(FrameType type, ByteBuffer copy, Chunk sent) {
            Side to = peer;
            long handled = framesHandled.get();
            Verdict v = closed.get() ? Verdict.DROP : tamper.inspect(isClient, type, copy);
            if (sent != null) {
                // The bytes were copied: the send slot is free again, on this side's thread.
                runOn(this, () -> {
                    sent.release();
                    FrameHandler h = handler;
                    if (h != null) {
                        h.onSendSlotFree();
                    }
                }, sent::releaseQuietly);
            }
            switch (v) {
                case DROP -> { }
                case CUT_CONNECTION -> {
                    close();
                }
                case DELIVER -> runOn(to, () -> to.receive(type, copy), () -> { });
                case DELIVER_AND_AWAIT_PEER_FRAME -> {
                    runOn(to, () -> to.receive(type, copy), () -> { });
                    long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
                    synchronized (framesHandled) {
                        // Bounded: the test then sees whatever order happened.
                        while (framesHandled.get() == handled && System.nanoTime() < until) {
                            try {
                                framesHandled.wait(100);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                break;
                            }
                        }
                    }
                }
                case DELIVER_AND_AWAIT_PEER_CLOSE -> {
                    runOn(to, () -> to.receive(type, copy), () -> { });
                    try {
                        // Not block(): the caller may be a Reactor non-blocking thread.
                        closedSignal.asMono().toFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // Bounded: the test then sees whatever order happened.
                    }
                }
            }
        }

        private void receive(FrameType type, ByteBuffer payload) {
            try {
                handle(type, payload);
            } finally {
                synchronized (framesHandled) {
                    framesHandled.incrementAndGet();
                    framesHandled.notifyAll();
                }
            }
        }

        private void handle(FrameType type, ByteBuffer payload) {
            FrameHandler h = handler;
            if (h == null) {
                early.add(() -> receive(type, payload));
                return;
            }
            if (closed.get()) {
                return;
            }
            if (type != FrameType.DATA) {
                h.onControlFrame(type, payload);
                return;
            }
            if (!dataAccepted) {
                // As the real transports: no receive slot for a peer that has not authenticated.
                h.onClosed(new RdmaFluxException(ErrorCode.PROTOCOL, "DATA frame before authentication"));
                close();
                return;
            }
            Chunk slot;
            try {
                slot = ring.acquire();
            } catch (IllegalStateException e) {
                h.onClosed(new RdmaFluxException(ErrorCode.PROTOCOL, "sender exceeded its credits"));
                close();
                return;
            }
            if (payload.remaining() > slot.buffer().capacity()) {
                slot.release();
                h.onClosed(new RdmaFluxException(ErrorCode.PROTOCOL, "DATA frame larger than a receive slot"));
                close();
                return;
            }
            slotsInUse.incrementAndGet();
            slot.buffer().put(payload).flip();
            h.onDataFrame(Chunk.of(slot.buffer(), () -> {
                slotsInUse.decrementAndGet();
                slot.release();
            }));
        }

        private void runOn(Side side, Runnable task, Runnable ifRejected) {
            try {
                side.thread.execute(task);
            } catch (RejectedExecutionException e) {
                ifRejected.run();
            }
        }

        @Override
        public int sendSlots() {
            return options.sendSlots();
        }

        @Override
        public int receiveSlots() {
            return options.receiveSlots();
        }

        @Override
        public int maxFramePayload() {
            return options.frameSize();
        }

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public String describe() {
            return name;
        }

        @Override
        public Mono<Void> onClose() {
            return closedSignal.asMono();
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            Side other = peer;
            // Queued frames are still delivered, then both sides learn of the close.
            runOn(this, () -> {
                FrameHandler h = handler;
                if (h != null) {
                    h.onClosed(null);
                }
                thread.shutdown();
                closedSignal.tryEmitEmpty();
            }, closedSignal::tryEmitEmpty);
            if (other != null) {
                runOn(other, other::peerClosed, () -> { });
            }
        }

        private void peerClosed() {
            FrameHandler h = handler;
            if (h == null) {
                early.add(this::peerClosed);
                return;
            }
            if (closed.compareAndSet(false, true)) {
                if (h != null) {
                    h.onClosed(null);
                }
                thread.shutdown();
                closedSignal.tryEmitEmpty();
            }
        }
    }
}
