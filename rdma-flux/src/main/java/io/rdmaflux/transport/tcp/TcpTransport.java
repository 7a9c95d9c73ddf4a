package io.rdmaflux.transport.tcp;

import io.netty.channel.ChannelOption;
import io.netty.resolver.DefaultAddressResolverGroup;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.SocketAddresses;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * The TCP transport, on reactor-netty (native epoll where available). Works everywhere; it is
 * what {@link TransportKind#AUTO} falls back to when RDMA is not usable.
 *
 * <p>Every instance runs on one set of event loops ("rdma-flux-tcp-*" threads) that this
 * transport owns, not on reactor-netty's global {@code TcpResources}: {@link #shutdown} stops
 * them without stopping other reactor-netty users of the same JVM (a web server, a client),
 * and the next connection or listener starts a new set.
 */
public final class TcpTransport implements Transport {

    /** This transport's event loops and what is open on them; made on first use, cleared by {@link #shutdown}. */
    private static final AtomicReference<LoopGeneration> LOOPS = new AtomicReference<>();

    /** The frame connection made for a channel as it became active, so no early read is missed. */
    private static final io.netty.util.AttributeKey<TcpFrameConnection> CONNECTION =
            io.netty.util.AttributeKey.valueOf("rdmaflux.connection");

    /** The caller's own event loops, or null for this transport's default ones. */
    private final LoopGeneration own;

    /** On the default event loops, which {@link #shutdown} stops. */
    public TcpTransport() {
        this.own = null;
    }

    /**
     * On the caller's own event loops (as reactor-netty's {@code runOn}); {@link #shutdown}
     * leaves them running: they are the caller's to dispose.
     */
    public TcpTransport(LoopResources loops) {
        this.own = LoopGeneration.borrowed(java.util.Objects.requireNonNull(loops, "loops"));
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options) {
        // Deferred: a retry after a shutdown gets the new loops, not the stopped ones.
        return Mono.defer(() -> {
            LoopGeneration loops = loops(own);
            return TcpClient.newConnection()
                    .runOn(loops.loops())
                    .remoteAddress(() -> address)
                    // The address is resolved already; Netty's DNS resolver would only add start-up.
                    .resolver(DefaultAddressResolverGroup.INSTANCE)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
                    .doOnConnected(c -> frameConnection(c, options, loops))
                    .connect()
                    .onErrorMap(e -> !(e instanceof RdmaFluxException),
                            e -> new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to "
                                    + SocketAddresses.format(address) + ": " + reason(e), e))
                    .map(c -> frameConnection(c, options, loops));
        });
    }

    @Override
    public Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                        Consumer<FrameConnection> acceptor) {
        return Mono.defer(() -> {
            LoopGeneration loops = loops(own);
            return TcpServer.create()
                    .runOn(loops.loops())
                    .bindAddress(() -> address)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .doOnConnection(c -> acceptor.accept(frameConnection(c, options, loops)))
                    // The engine drives the connection; keep it open until the engine closes it.
                    .handle((in, out) -> Mono.never())
                    .bind()
                    .onErrorMap(e -> !(e instanceof RdmaFluxException),
                            e -> new RdmaFluxException(ErrorCode.CONNECT, "cannot listen on "
                                    + SocketAddresses.format(address) + ": " + reason(e), e))
                    .map(server -> {
                        Server s = new Server(server, reactor.core.publisher.Sinks.empty());
                        loops.add(s, server.channel());
                        return (TransportServer) s;
                    });
        });
    }

    /**
     * Closes every connection and listener on the default event loops still open and stops
     * those loops, waiting at most {@code timeout}; other reactor-netty users of the JVM keep
     * theirs, and so do transports made on a caller's own loops. Later use starts new loops.
     */
    @Override
    public void shutdown(Duration timeout) {
        if (own != null) {
            return;
        }
        LoopGeneration loops = LOOPS.getAndSet(null);
        if (loops != null) {
            loops.stop(timeout);
        }
    }

    /** {@code own} if given, else the default event loops, made on first use (and after a shutdown). */
    private static LoopGeneration loops(LoopGeneration own) {
        if (own != null) {
            return own;
        }
        LoopGeneration loops = LOOPS.get();
        while (loops == null) {
            // Cheap when it loses the race: the loop groups are made on first use, not here.
            LoopResources fresh = LoopResources.create("rdma-flux-tcp", LoopResources.DEFAULT_IO_WORKER_COUNT, true);
            LoopGeneration made = LoopGeneration.owned(fresh);
            if (LOOPS.compareAndSet(null, made)) {
                return made;
            }
            fresh.dispose();
            loops = LOOPS.get();
        }
        return loops;
    }

    /**
     * The one frame connection of a channel, made by whichever comes first: the connected
     * callback on the event loop or the caller's continuation. reactor-netty keeps a new
     * channel in manual-read mode until then, so no frame is read before the decoder is in.
     */
    private static TcpFrameConnection frameConnection(reactor.netty.Connection c, TransportOptions options,
                                                      LoopGeneration loops) {
        io.netty.util.Attribute<TcpFrameConnection> attr = c.channel().attr(CONNECTION);
        TcpFrameConnection existing = attr.get();
        if (existing != null) {
            return existing;
        }
        synchronized (attr) {
            existing = attr.get();
            if (existing == null) {
                existing = new TcpFrameConnection(c, options);
                attr.set(existing);
                loops.add(existing, c.channel());
            }
            return existing;
        }
    }

    /** The cause of {@code e} as a person reads it: "connection reset by peer", not Netty's syscall text. */
    static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof java.nio.channels.UnresolvedAddressException) {
            return "no such address (not an IP address or a name that resolves)";
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        // Netty prefixes native errors with the syscall, as in "finishConnect(..) failed with
        // error(-111): Connection refused"; users care about the cause only.
        if (m.contains("(..) failed")) {
            m = m.substring(m.lastIndexOf(": ") + 2);
        }
        if (m.toLowerCase(java.util.Locale.ROOT).startsWith("connection refused")) {
            return "connection refused (is the receiver running?)";
        }
        return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }

    /** A listener; {@code stopped} completes when its loops stopped with it open (its close is never reported then). */
    private record Server(DisposableServer server, reactor.core.publisher.Sinks.Empty<Void> stopped)
            implements TransportServer, LoopGeneration.Member {

        /** Its loops stopped: a listener bound in the race with the shutdown is closed here. */
        @Override
        public void loopsStopped() {
            LoopGeneration.closeOrphan(server.channel());
            stopped.tryEmitEmpty();
        }

        @Override
        public InetSocketAddress address() {
            return (InetSocketAddress) server.address();
        }

        @Override
        public String name() {
            return "tcp";
        }

        @Override
        public void dispose() {
            // Not disposeNow(): this may run on an event loop, where blocking is not allowed.
            server.dispose();
        }

        @Override
        public boolean isDisposed() {
            return server.isDisposed();
        }

        @Override
        public Mono<Void> onDispose() {
            return Mono.firstWithSignal(server.onDispose().onErrorComplete(), stopped.asMono());
        }
    }
}
