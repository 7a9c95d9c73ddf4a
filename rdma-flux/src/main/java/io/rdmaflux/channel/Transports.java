package io.rdmaflux.channel;

import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Picks the transports for a {@link TransportKind}. RDMA is loaded by name so that the channel
 * works (over TCP) on machines where the RDMA classes or native library cannot load at all.
 */
public final class Transports {

    private static final Logger log = Loggers.getLogger(Transports.class);
    private static final String RDMA_CLASS = "io.rdmaflux.transport.rdma.RdmaTransport";
    private static volatile Transport rdma;
    private static volatile String rdmaProblem;
    private static final AtomicBoolean rdmaProblemTold = new AtomicBoolean();

    private Transports() {
    }

    /**
     * Stops the threads the transports keep (the TCP transport's own event loops; the RDMA
     * transport's listener and connection threads, when RDMA was used), waiting at most
     * {@code timeout} for each. For a process about to exit: the JVM's exit waits up to 300 ms
     * for threads blocked in native calls, and an idle event loop is one (in
     * {@code epoll_wait}), as is an RDMA thread waiting for an event. Connections still open are
     * closed. Other reactor-netty users of the JVM are left alone: the TCP transport does not
     * run on reactor-netty's global {@code TcpResources}. Later use of a transport starts new
     * threads.
     */
    public static void shutdown(Duration timeout) {
        Transport r = rdma;
        if (r != null) {
            r.shutdown(timeout);
        }
        try {
            tcp().shutdown(timeout);
        } catch (RuntimeException e) {
            log.debug("transport shutdown did not finish in {}: {}", timeout, e.toString());
        }
    }

    /** The TCP transport. */
    public static Transport tcp() {
        return new TcpTransport();
    }

    /** The RDMA transport, or null when it cannot be used here; {@link #rdmaUnavailableReason()} says why. */
    public static Transport rdma() {
        loadRdma();
        return rdma;
    }

    /** Why RDMA cannot be used here, or null when it can. */
    public static String rdmaUnavailableReason() {
        loadRdma();
        return rdmaProblem;
    }

    private static synchronized void loadRdma() {
        if (rdma != null || rdmaProblem != null) {
            return;
        }
        try {
            Transport t = (Transport) Class.forName(RDMA_CLASS).getDeclaredConstructor().newInstance();
            String why = t.unavailableReason();
            if (why == null) {
                rdma = t;
            } else {
                rdmaProblem = why;
            }
        } catch (ClassNotFoundException e) {
            rdmaProblem = "this build has no RDMA transport";
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            rdmaProblem = "the RDMA transport failed to load: " + e;
        }
    }

    /**
     * The transports to use, in order of preference. AUTO gives RDMA (when usable) then TCP;
     * RDMA gives RDMA or fails with one line saying what is missing.
     */
    public static List<Transport> select(TransportKind kind) {
        List<Transport> out = new ArrayList<>(2);
        switch (kind) {
            case TCP -> out.add(tcp());
            case RDMA -> {
                Transport r = rdma();
                if (r == null) {
                    throw new ProtocolException(ErrorCode.TRANSPORT_UNAVAILABLE, "RDMA transport unavailable: " + rdmaProblem);
                }
                out.add(r);
            }
            case AUTO -> {
                Transport r = rdma();
                if (r != null) {
                    out.add(r);
                } else if (rdmaProblemTold.compareAndSet(false, true)) {
                    // Once per process: an rdcp with --sync selects for three channels.
                    log.info("RDMA not usable ({}); using TCP", rdmaProblem);
                }
                out.add(tcp());
            }
        }
        return out;
    }
}
