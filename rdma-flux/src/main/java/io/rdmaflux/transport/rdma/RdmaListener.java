package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.SocketAddresses;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A listening RDMA CM id and the thread that serves its event channel. Connect requests get
 * their verbs resources and the receive ring posted before they are accepted; a connection is
 * handed to the acceptor once ESTABLISHED. Accepted ids stay on this channel (DiSNI cannot
 * migrate them), so their DISCONNECTED events arrive here and are passed on, and the channel is
 * destroyed only after the last accepted connection has been torn down.
 */
final class RdmaListener implements TransportServer {

    private static final Logger log = Loggers.getLogger(RdmaListener.class);
    /** Longest wait for an event; {@link #dispose()} cuts it short, so it only bounds a missed wake-up. */
    private static final int WAIT_MS = 200;

    private final RdmaEventChannel channel;
    private final RdmaCmId listenId;
    private final InetSocketAddress bound;
    private final TransportOptions options;
    private final Consumer<FrameConnection> acceptor;
    private final Map<RdmaCmId, RdmaConnection> connections = new IdentityHashMap<>();
    /** Connections accepted by the CM but not yet ESTABLISHED (not yet the engine's). */
    private final Map<RdmaCmId, RdmaConnection> notYetEstablished = new IdentityHashMap<>();
    private final AtomicInteger alive = new AtomicInteger();
    private final Waker waker;
    private volatile boolean disposed;
    private volatile boolean finished;
    /** Emitted when the listener's thread has released everything, as {@link #finished} is set. */
    private final Sinks.Empty<Void> released = Sinks.empty();

    private RdmaListener(RdmaEventChannel channel, RdmaCmId listenId, InetSocketAddress bound,
                         TransportOptions options, Consumer<FrameConnection> acceptor, Waker waker) {
        this.waker = waker;
        this.channel = channel;
        this.listenId = listenId;
        this.bound = bound;
        this.options = options;
        this.acceptor = acceptor;
    }

    static RdmaListener open(InetSocketAddress address, TransportOptions options, Consumer<FrameConnection> acceptor) {
        RdmaNative.ensureAvailable();
        RdmaTransport.requireIpv4(address, "cannot listen for RDMA on " + SocketAddresses.format(address));
        RdmaEventChannel channel = null;
        RdmaCmId id = null;
        Waker waker = null;
        try {
            waker = new Waker();
            channel = RdmaEventChannel.createEventChannel();
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            id.bindAddr(address);
            id.listen(64);
            InetSocketAddress bound = address;
            SocketAddress src = id.getSource();
            if (src instanceof InetSocketAddress s && s.getPort() != 0) {
                bound = new InetSocketAddress(address.getAddress(), s.getPort());
            }
            RdmaListener l = new RdmaListener(channel, id, bound, options, acceptor, waker);
            RdmaTransport.listenerOpened(l);
            Thread t = new Thread(l::run, "rdma-flux-listen-" + bound.getPort());
            t.setDaemon(true);
            t.start();
            return l;
        } catch (IOException | RuntimeException e) {
            try {
                if (id != null) {
                    id.destroyId();
                }
                if (channel != null) {
                    channel.destroyEventChannel();
                }
            } catch (IOException | RuntimeException ignored) {
                // best effort
            }
            if (waker != null) {
                waker.close();
            }
            String why = e.getMessage() != null && e.getMessage().contains("Address already in use")
                    ? "port already in use" : e.getMessage();
            throw new RdmaFluxException(ErrorCode.CONNECT, "cannot listen for RDMA on "
                    + SocketAddresses.format(address) + ": " + why, e);
        }
    }

    private void run() {
        boolean listening = true;
        try {
            while (true) {
                if (disposed && listening) {
                    listening = false;
                    quietly(listenId::destroyId);
                    closeUnstarted();
                }
                if (disposed && alive.get() == 0) {
                    break;
                }
                RdmaCmEvent ev = nextEvent();
                if (ev != null) {
                    handleOne(ev, listening);
                }
            }
        } catch (Throwable t) {
            log.warn("RDMA listener on port {} failed: {}", bound.getPort(), t.toString());
        } finally {
            // Wait for connections still tearing down before the channel goes.
            long until = System.nanoTime() + 10_000_000_000L;
            while (alive.get() > 0 && System.nanoTime() < until) {
                try {
                    RdmaCmEvent ev = nextEvent();
                    if (ev != null) {
                        handleOne(ev, false);
                    }
                } catch (IOException e) {
                    break;
                }
            }
            if (listening) {
                quietly(listenId::destroyId);
            }
            quietly(channel::destroyEventChannel);
            waker.close();
            finished = true;
            released.tryEmitEmpty();
            RdmaTransport.listenerReleased(this);
        }
    }

    /** The next CM event, acknowledged, or null when the wait ended without one. */
    private RdmaCmEvent nextEvent() throws IOException {
        if (waker.await(Waker.fdOf(channel), -1, WAIT_MS) == 0) {
            return null;
        }
        RdmaCmEvent ev = channel.getCmEvent(0);
        if (ev != null) {
            ev.ackEvent();
        }
        return ev;
    }

    /** One event; what goes wrong with one peer's connection must not end the listener for the others. */
    private void handleOne(RdmaCmEvent ev, boolean listening) {
        try {
            handle(ev, listening);
        } catch (RuntimeException e) {
            log.warn("RDMA listener on port {}: event {} failed: {}", bound.getPort(), ev.getEvent(), e.toString());
        }
    }

    private void handle(RdmaCmEvent ev, boolean listening) {
        int type = ev.getEvent();
        RdmaCmId connId = ev.getConnIdPriv();
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
            if (!listening || connId == null) {
                if (connId != null) {
                    quietly(connId::destroyId);
                }
                return;
            }
            accept(connId);
            return;
        }
        RdmaConnection conn;
        synchronized (connections) {
            conn = connId == null ? null : connections.get(connId);
        }
        if (conn == null) {
            return;
        }
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal()) {
            synchronized (connections) {
                notYetEstablished.remove(connId);
            }
            if (!listening) {
                conn.close();
                return;
            }
            conn.established();
            try {
                acceptor.accept(conn);
            } catch (RuntimeException e) {
                log.warn("RDMA acceptor failed: {}", e.toString());
                conn.close();
            }
        } else if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            conn.peerDisconnected();
        } else if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_ERROR.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal()) {
            conn.peerDisconnected();
            conn.close();
        }
    }

    private void accept(RdmaCmId connId) {
        String peer = "?";
        try {
            SocketAddress dst = connId.getDestination();
            peer = SocketAddresses.format(dst);
        } catch (IOException | RuntimeException ignored) {
            // only for messages
        }
        RdmaConnection conn;
        try {
            conn = new RdmaConnection(connId, null, options, peer);
        } catch (IOException | RuntimeException e) {
            log.warn("cannot set up RDMA connection from {}: {}", peer, e.getMessage());
            quietly(connId::destroyId);
            return;
        }
        alive.incrementAndGet();
        synchronized (connections) {
            connections.put(connId, conn);
            notYetEstablished.put(connId, conn);
        }
        conn.onTornDown(() -> {
            synchronized (connections) {
                connections.remove(connId);
                notYetEstablished.remove(connId);
            }
            alive.decrementAndGet();
            waker.wake();
        });
        try {
            connId.accept(RdmaConnection.connParam());
        } catch (IOException | RuntimeException e) {
            log.warn("cannot accept RDMA connection from {}: {}", peer, e.getMessage());
            conn.close();
        }
    }

    /** On dispose, connections that never reached the engine are closed here. */
    private void closeUnstarted() {
        // Connections handed to the acceptor are the engine's to close; the rest are ours.
        RdmaConnection[] pending;
        synchronized (connections) {
            pending = notYetEstablished.values().toArray(new RdmaConnection[0]);
            notYetEstablished.clear();
        }
        for (RdmaConnection c : pending) {
            c.close();
        }
    }

    private static void quietly(Step s) {
        try {
            s.run();
        } catch (Exception e) {
            log.debug("RDMA listener teardown step failed: {}", e.toString());
        }
    }

    private interface Step {
        Object run() throws Exception;
    }

    @Override
    public InetSocketAddress address() {
        return bound;
    }

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public void dispose() {
        disposed = true;
        waker.wake();
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /**
     * Completes when the listener's thread has released everything; its event channel serves
     * the connections it accepted too, so that is after they have been torn down.
     */
    @Override
    public Mono<Void> onDispose() {
        return released.asMono();
    }

    /** Whether the listener's thread has released everything. */
    boolean isFinished() {
        return finished;
    }
}
