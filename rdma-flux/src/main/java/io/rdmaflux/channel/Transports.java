package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportProvider;
import io.rdmaflux.transport.TransportProviders;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import io.rdmaflux.internal.protocol.Authenticator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Picks the transports for a {@link TransportKind}, from the {@link TransportProvider}s found
 * in this process ({@link TransportProviders}): {@code tcp} and {@code rdma} built in, and any
 * other that a jar lists in {@code META-INF/services/io.rdmaflux.transport.TransportProvider}.
 * RDMA is loaded by name inside its provider, so that the channel works (over TCP) on machines
 * where the RDMA classes or native library cannot load at all.
 */
public final class Transports {

    private static final Logger log = Loggers.getLogger(Transports.class);
    /** The providers whose unusability AUTO has reported: once per process, as an rdcp with --sync selects for three channels. */
    private static final Set<String> told = ConcurrentHashMap.newKeySet();
    /** The kinds (by name; "" for a transport given as an instance) {@link #choose} has prepared. */
    private static final Set<String> prepared = ConcurrentHashMap.newKeySet();

    private Transports() {
    }

    /**
     * Stops the threads the transports keep (the TCP transport's own event loops; the RDMA
     * transport's listener and connection threads, when RDMA was used), waiting at most
     * {@code timeout} for each. For a process about to exit: the JVM's exit waits up to
     * 300 ms for threads blocked in native calls, and an idle event loop is one (in
     * {@code epoll_wait}), as is an RDMA thread waiting for an event. Connections still open are
     * closed, and every {@link SenderPool} is disposed. Other reactor-netty users of the JVM are left alone: the TCP transport does not
     * run on reactor-netty's global {@code TcpResources}. Later use of a transport starts new
     * threads.
     */
    public static void shutdown(Duration timeout) {
        // Idle kept connections first: their owners are done with them.
        SenderPool.disposeAll();
        // In the order AUTO prefers them (RDMA, then TCP), the order this always had.
        List<TransportProvider> providers = new ArrayList<>(TransportProviders.all());
        providers.sort(Comparator.comparingInt(TransportProvider::autoOrder).reversed());
        for (TransportProvider p : providers) {
            try {
                p.shutdown(timeout);
            } catch (RuntimeException e) {
                log.debug("{} transport shutdown did not finish in {}: {}", p.name(), timeout, e.toString());
            }
        }
    }

    /** The TCP transport. */
    public static Transport tcp() {
        return new TcpTransport();
    }

    /**
     * The TCP transport on the caller's own event loops, which it leaves running:
     * {@link #shutdown} stops only the default ones.
     */
    public static Transport tcp(LoopResources loops) {
        return new TcpTransport(Check.notNull(loops, "loops"));
    }

    /**
     * The transports a builder uses: {@code explicit} if given, else {@link #select}'s, with TCP
     * on {@code loops} when given. The first time for a kind it runs on a thread that may block
     * ({@link Schedulers#boundedElastic()}): probing RDMA extracts and loads a native library,
     * and seeding the nonce generator reads the system's entropy; the caller may be on an event
     * loop or one of Reactor's non-blocking threads. The answers are kept, so later streams
     * stay on the caller's thread.
     */
    static Mono<List<Transport>> choose(TransportKind kind, Transport explicit, LoopResources loops) {
        String key = explicit != null ? "" : kind.name();
        Mono<List<Transport>> chosen = Mono.fromCallable(() -> {
            Authenticator.prepare();
            List<Transport> ts = explicit != null ? List.of(explicit) : select(kind);
            prepared.add(key);
            return loops == null ? ts : ts.stream().map(t -> t instanceof TcpTransport ? tcp(loops) : t).toList();
        });
        return prepared.contains(key) && Authenticator.isPrepared() ? chosen
                : chosen.subscribeOn(Schedulers.boundedElastic());
    }

    /** The RDMA transport, or null when it cannot be used here; {@link #rdmaUnavailableReason()} says why. */
    public static Transport rdma() {
        return rdmaUnavailableReason() == null ? TransportProviders.find("rdma").orElseThrow().transport() : null;
    }

    /** Why RDMA cannot be used here, or null when it can. */
    public static String rdmaUnavailableReason() {
        return unavailableReason("rdma");
    }

    /** Why the transport named {@code name} cannot be used here, or null when it can. */
    public static String unavailableReason(String name) {
        Optional<TransportProvider> p = TransportProviders.find(name);
        return p.isEmpty() ? "this build has no " + TransportProviders.display(name) + " transport"
                : p.get().unavailableReason();
    }

    /**
     * The transports to use, in order of preference. AUTO gives every usable transport that
     * takes part in it, best first (RDMA when usable, then TCP); a named kind gives that
     * transport or fails with one line saying what is missing.
     */
    public static List<Transport> select(TransportKind kind) {
        if (!kind.isAuto()) {
            String why = unavailableReason(kind.name());
            if (why != null) {
                throw new RdmaFluxException(ErrorCode.TRANSPORT_UNAVAILABLE,
                        TransportProviders.display(kind.name()) + " transport unavailable: " + why);
            }
            return List.of(TransportProviders.find(kind.name()).orElseThrow().transport());
        }
        List<TransportProvider> candidates = new ArrayList<>(TransportProviders.all().stream()
                .filter(p -> p.autoOrder() >= 0).toList());
        candidates.sort(Comparator.comparingInt(TransportProvider::autoOrder).reversed());
        List<Transport> out = new ArrayList<>(candidates.size());
        List<TransportProvider> unusable = new ArrayList<>();
        for (TransportProvider p : candidates) {
            if (p.unavailableReason() == null) {
                out.add(p.transport());
            } else {
                unusable.add(p);
            }
        }
        if (out.isEmpty()) {
            throw new RdmaFluxException(ErrorCode.TRANSPORT_UNAVAILABLE, "no transport usable: " + unusable.stream()
                    .map(p -> TransportProviders.display(p.name()) + ": " + p.unavailableReason()).toList());
        }
        for (TransportProvider p : unusable) {
            if (told.add(p.name())) {
                log.info("{} not usable ({}); using {}", TransportProviders.display(p.name()), p.unavailableReason(),
                        TransportProviders.display(out.get(0).name()));
            }
        }
        return out;
    }
}
