package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.SocketAddresses;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The RDMA transport: reliable-connected queue pairs set up through the RDMA connection manager,
 * on DiSNI's verbs API (not its endpoint groups) and the project's own {@code libdisni}.
 *
 * <p>A connection made with {@link #connect} sends the stream; one accepted by {@link #listen}
 * receives it (the engine's roles). A receiving connection registers one receive ring, once
 * its peer has authenticated ({@link FrameConnection#acceptData()}), whose posted receives are
 * the credits the peer gets, plus a few receives reserved for control frames, so a
 * receiver-not-ready cannot happen while the engine keeps to its credits; until then it holds
 * two small receives. Every frame travels as one SEND_WITH_IMM whose immediate value is the
 * frame type, so data lands page-aligned at the start of a receive slot. See
 * {@link RdmaConnection} for the slot and thread model.
 *
 * <p>Blocking connection-manager steps (resolve, connect, accept) run on this transport's own
 * threads, never on Netty's or Reactor's parallel threads.
 *
 * <p>Tuning beyond {@link TransportOptions}: the system property {@code rdmaflux.rdma.source}
 * (or the environment variable {@code RDMAFLUX_RDMA_SOURCE}) binds outgoing connections to a
 * local address, which picks the RDMA device they leave from.
 */
public final class RdmaTransport implements Transport {

    /** Resolve and route timeouts given to the connection manager, in ms. */
    static final int RESOLVE_TIMEOUT_MS = 2000;
    /** Transport retries (ack timeouts) and receiver-not-ready retries (7: without limit). */
    static final byte RETRY_COUNT = 7;
    /**
     * 7 means "retry without limit". Tests set {@code -Drdmaflux.rdma.rnrRetry=0} to prove that
     * the credit rule alone prevents receiver-not-ready: any RNR then fails the stream.
     */
    static final byte RNR_RETRY_COUNT = (byte) Math.max(0, Math.min(7, Integer.getInteger("rdmaflux.rdma.rnrRetry", 7)));

    /** Threads for the blocking connection-manager steps of connect and listen, made on first use. */
    private static final class CmThreads {
        static final Scheduler INSTANCE = Schedulers.newBoundedElastic(8, 64, "rdma-flux-cm", 30, true);
    }

    /** Connections whose verbs resources are not yet all released. */
    private static final Set<RdmaConnection> LIVE_CONNECTIONS = ConcurrentHashMap.newKeySet();
    /** Listeners not yet fully torn down. */
    private static final Set<RdmaListener> LIVE_LISTENERS = ConcurrentHashMap.newKeySet();
    /** Notified whenever a connection or listener is released, for {@link #shutdown}. */
    private static final Object RELEASED = new Object();

    public RdmaTransport() {
    }

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public String unavailableReason() {
        return RdmaNative.unavailableReason();
    }

    /**
     * Bytes of memory a receiving connection registers (pins) with the device for
     * {@code options} once its sender has authenticated: the receive ring with its spare
     * receives for control frames (slots rounded up to whole pages), its control send slots and
     * two small receives. The process's locked-memory limit ({@code ulimit -l}) must allow this
     * per stream received at once.
     */
    public static long registeredBytesReceiving(TransportOptions options) {
        return SlotLayout.accepting(options).registeredBytes();
    }

    /**
     * Bytes a receiving connection registers before its peer has authenticated: small control
     * receives and control send slots, whatever the frame size. A receiver holds at most a
     * bounded number of such connections (see {@code FluxReceiver}).
     */
    public static long registeredBytesUnauthenticated(TransportOptions options) {
        return SlotLayout.accepting(options).setupBytes();
    }

    /**
     * Bytes a sending connection registers for {@code options}: its data send slots, control
     * send slots and small control receives.
     */
    public static long registeredBytesSending(TransportOptions options) {
        return SlotLayout.connecting(options).registeredBytes();
    }

    /** Connections whose verbs resources are not yet all released; tests check it reaches 0. */
    public static int liveConnections() {
        return LIVE_CONNECTIONS.size();
    }

    /** Listeners not yet fully torn down. */
    public static int liveListeners() {
        return LIVE_LISTENERS.size();
    }

    /** Bytes of memory currently registered with RDMA devices by this JVM. */
    public static long registeredBytes() {
        return RdmaResources.REGISTERED_BYTES.get();
    }

    static void connectionOpened(RdmaConnection c) {
        LIVE_CONNECTIONS.add(c);
    }

    static void connectionReleased(RdmaConnection c) {
        released(LIVE_CONNECTIONS, c);
    }

    static void listenerOpened(RdmaListener l) {
        LIVE_LISTENERS.add(l);
    }

    static void listenerReleased(RdmaListener l) {
        released(LIVE_LISTENERS, l);
    }

    private static <T> void released(Set<T> live, T item) {
        live.remove(item);
        synchronized (RELEASED) {
            RELEASED.notifyAll();
        }
    }

    /**
     * Closes every RDMA connection and listener of this JVM still open and waits, at most
     * {@code timeout}, until all are released; their threads then end without another native
     * wait. For a process about to exit ({@code Transports.shutdown}):
     * the JVM's exit would otherwise wait for a thread inside a native wait. Connections close as
     * {@link FrameConnection#close()} does, sending what is queued first.
     */
    @Override
    public void shutdown(Duration timeout) {
        LIVE_LISTENERS.forEach(RdmaListener::dispose);
        LIVE_CONNECTIONS.forEach(RdmaConnection::close);
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (RELEASED) {
            while (!LIVE_CONNECTIONS.isEmpty() || !LIVE_LISTENERS.isEmpty()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return;
                }
                try {
                    RELEASED.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options) {
        return Mono.<FrameConnection>fromCallable(() -> connectBlocking(address, options))
                .subscribeOn(CmThreads.INSTANCE);
    }

    @Override
    public Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                        Consumer<FrameConnection> acceptor) {
        return Mono.<TransportServer>fromCallable(() -> RdmaListener.open(address, options, acceptor))
                .subscribeOn(CmThreads.INSTANCE);
    }

    private static FrameConnection connectBlocking(InetSocketAddress address, TransportOptions options) {
        RdmaNative.ensureAvailable();
        String target = SocketAddresses.format(address);
        requireIpv4(address, "cannot connect to rdma " + target);
        long deadline = System.nanoTime() + Math.max(1, options.connectTimeout().toNanos());
        RdmaEventChannel channel = null;
        RdmaCmId id = null;
        RdmaConnection conn = null;
        try {
            channel = RdmaEventChannel.createEventChannel();
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            InetAddress source = sourceAddress();
            if (source != null) {
                id.bindAddr(new InetSocketAddress(source, 0));
            }
            id.resolveAddr(null, address, RESOLVE_TIMEOUT_MS);
            expect(channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED, deadline, target);
            id.resolveRoute(RESOLVE_TIMEOUT_MS);
            expect(channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, target);
            conn = new RdmaConnection(id, channel, options, target);
            id.connect(RdmaConnection.connParam());
            expect(channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED, deadline, target);
            conn.established();
            return conn;
        } catch (RdmaFluxException e) {
            abandon(conn, id, channel);
            throw e;
        } catch (IOException | RuntimeException e) {
            abandon(conn, id, channel);
            throw new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to rdma " + target + ": " + e.getMessage(), e);
        }
    }

    private static void abandon(RdmaConnection conn, RdmaCmId id, RdmaEventChannel channel) {
        if (conn != null) {
            conn.abortSetup();
            return;
        }
        try {
            if (id != null) {
                id.destroyId();
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort on a failed connect
        }
        try {
            if (channel != null) {
                channel.destroyEventChannel();
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort on a failed connect
        }
    }

    /** Waits for one CM event of the wanted type before the deadline, or fails clearly. */
    static void expect(RdmaEventChannel channel, RdmaCmEvent.EventType wanted, long deadline, String target)
            throws IOException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to rdma " + target
                        + ": no answer within the connect timeout (waiting for " + name(wanted.ordinal()) + ")");
            }
            RdmaCmEvent ev = channel.getCmEvent((int) Math.min(250, Math.max(1, left / 1_000_000)));
            if (ev == null) {
                continue;
            }
            ev.ackEvent();
            int type = ev.getEvent();
            if (type == wanted.ordinal()) {
                return;
            }
            throw new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to rdma " + target + ": " + explain(type));
        }
    }

    private static String explain(int type) {
        RdmaCmEvent.EventType t = type >= 0 && type < RdmaCmEvent.EventType.values().length
                ? RdmaCmEvent.EventType.values()[type] : null;
        if (t == null) {
            return "unexpected connection-manager event " + type;
        }
        return switch (t) {
            case RDMA_CM_EVENT_REJECTED -> "connection refused (is the receiver running and listening for RDMA?)";
            case RDMA_CM_EVENT_UNREACHABLE -> "peer unreachable over RDMA";
            case RDMA_CM_EVENT_ADDR_ERROR -> "no RDMA device routes to this address";
            case RDMA_CM_EVENT_ROUTE_ERROR -> "no RDMA route to this address";
            case RDMA_CM_EVENT_CONNECT_ERROR -> "connection error during set-up";
            case RDMA_CM_EVENT_DEVICE_REMOVAL -> "the RDMA device was removed";
            default -> "unexpected connection-manager event " + t.name();
        };
    }

    static String name(int type) {
        RdmaCmEvent.EventType[] all = RdmaCmEvent.EventType.values();
        return type >= 0 && type < all.length ? all[type].name() : "event " + type;
    }

    /** DiSNI's address structures are IPv4 only (sockaddr_in). */
    static void requireIpv4(InetSocketAddress address, String what) {
        if (address.isUnresolved()) {
            throw new RdmaFluxException(ErrorCode.CONNECT, what + ": unknown host " + address.getHostString());
        }
        if (!(address.getAddress() instanceof java.net.Inet4Address)) {
            throw new RdmaFluxException(ErrorCode.CONNECT, what + ": RDMA needs an IPv4 address (DiSNI has no IPv6)");
        }
    }

    private static InetAddress sourceAddress() throws IOException {
        String s = System.getProperty("rdmaflux.rdma.source");
        if (s == null || s.isBlank()) {
            s = System.getenv("RDMAFLUX_RDMA_SOURCE");
        }
        if (s == null || s.isBlank()) {
            return null;
        }
        return InetAddress.getByName(s.trim());
    }
}
