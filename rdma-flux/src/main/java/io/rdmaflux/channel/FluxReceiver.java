package io.rdmaflux.channel;

import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The receiving side of a channel: binds a port and hands each authenticated stream to a
 * handler. Immutable; each setter returns a configured copy, as reactor-netty's servers do.
 *
 * <pre>{@code
 * FluxReceiver.create().port(7691).key(secret)
 *         .handle(stream -> stream.receive().doOnNext(buf -> consume(buf)).then())
 *         .receiveOne()
 *         .block();
 * }</pre>
 *
 * <p>The handler returns a {@code Publisher<Void>} that completes when it is done with the
 * stream; only then is the sender told the stream arrived, so the sender's success includes
 * the handler's. With AUTO transport the receiver listens for RDMA (when usable) and TCP on
 * the same port number and takes whichever comes.
 */
public final class FluxReceiver {

    private static final Logger log = Loggers.getLogger(FluxReceiver.class);

    private final String host;
    private final int port;
    private final byte[] key;
    private final TransportKind kind;
    private final Transport transport;
    private final ChannelOptions options;
    private final Function<? super InboundStream, ? extends Publisher<Void>> handler;

    private FluxReceiver(String host, int port, byte[] key, TransportKind kind, Transport transport,
                         ChannelOptions options, Function<? super InboundStream, ? extends Publisher<Void>> handler) {
        this.host = host;
        this.port = port;
        this.key = key;
        this.kind = kind;
        this.transport = transport;
        this.options = options;
        this.handler = handler;
    }

    /** A receiver on all interfaces, port 7691, AUTO transport, default options. */
    public static FluxReceiver create() {
        return new FluxReceiver("0.0.0.0", 7691, null, TransportKind.AUTO, null, ChannelOptions.defaults(), null);
    }

    /** The local address to bind (default: all interfaces). */
    public FluxReceiver host(String host) {
        return new FluxReceiver(Objects.requireNonNull(host), port, key, kind, transport, options, handler);
    }

    /** The port to bind; 0 picks a free one (see {@link ReceiverServer#address()}). */
    public FluxReceiver port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
        }
        return new FluxReceiver(host, port, key, kind, transport, options, handler);
    }

    public FluxReceiver key(byte[] key) {
        return new FluxReceiver(host, port, key.clone(), kind, transport, options, handler);
    }

    public FluxReceiver key(String key) {
        return key(key.getBytes(StandardCharsets.UTF_8));
    }

    public FluxReceiver transport(TransportKind kind) {
        return new FluxReceiver(host, port, key, Objects.requireNonNull(kind), null, options, handler);
    }

    /** Uses this transport instance (the in-memory one in tests, say). */
    public FluxReceiver transport(Transport transport) {
        return new FluxReceiver(host, port, key, TransportKind.AUTO, transport, options, handler);
    }

    public FluxReceiver options(ChannelOptions options) {
        return new FluxReceiver(host, port, key, kind, transport, Objects.requireNonNull(options), handler);
    }

    /** What to do with each stream; the returned publisher completes when the handler is done. */
    public FluxReceiver handle(Function<? super InboundStream, ? extends Publisher<Void>> handler) {
        return new FluxReceiver(host, port, key, kind, transport, options, Objects.requireNonNull(handler));
    }

    /** Binds and serves streams until the returned server is disposed. */
    public Mono<ReceiverServer> bind() {
        return bind(session -> session.result().subscribe(null,
                e -> log.warn("stream from {} failed: {}", session.peer(), e.getMessage())));
    }

    /**
     * Binds, serves the first stream whose sender is an rdma-flux peer, then unbinds. Completes
     * (or fails) with that stream's outcome. Connections that never send a valid HELLO (port
     * scanners, say) are logged and ignored. The same as {@code bindOne().flatMap(SingleStreamServer::outcome)}.
     */
    public Mono<Void> receiveOne() {
        return bindOne().flatMap(SingleStreamServer::outcome);
    }

    /**
     * Binds for exactly one stream: the returned server knows its address at once (port 0
     * resolved), and its {@link SingleStreamServer#outcome()} is the stream's outcome, as
     * {@link #receiveOne()} gives it.
     */
    public Mono<SingleStreamServer> bindOne() {
        return Mono.defer(() -> {
            Sinks.One<Void> outcome = Sinks.one();
            AtomicBoolean taken = new AtomicBoolean();
            return bind(session -> session.result().subscribe(
                    ok -> { },
                    e -> {
                        if (session.peerIdentified() && taken.compareAndSet(false, true)) {
                            outcome.tryEmitError(e);
                        } else {
                            log.warn("ignored a connection that is not an rdma-flux sender: {}", e.getMessage());
                        }
                    },
                    () -> {
                        if (taken.compareAndSet(false, true)) {
                            outcome.tryEmitEmpty();
                        }
                    }))
                    .map(server -> new One(server, outcome.asMono().doFinally(s -> server.dispose())));
        });
    }

    private Mono<ReceiverServer> bind(Consumer<ReceiverSession> onSession) {
        if (key == null) {
            return Mono.error(new IllegalStateException("no key set"));
        }
        if (handler == null) {
            return Mono.error(new IllegalStateException("no handler set"));
        }
        return Mono.defer(() -> {
            List<Transport> transports = transport != null ? List.of(transport) : Transports.select(kind);
            Consumer<FrameConnection> acceptor = c -> {
                log.info("accepted {}", c.describe());
                onSession.accept(new ReceiverSession(c, key, options, handler).start());
            };
            // Bind the first transport, then the others on the port it got, so that all
            // transports share one port number.
            return transports.get(0).listen(new InetSocketAddress(host, port), options.transportOptions(), acceptor)
                    .flatMap(first -> Flux.fromIterable(transports.subList(1, transports.size()))
                            .concatMap(t -> t.listen(new InetSocketAddress(host, first.address().getPort()),
                                    options.transportOptions(), acceptor))
                            .collectList()
                            .doOnError(e -> first.dispose())
                            .map(rest -> {
                                List<TransportServer> all = new java.util.ArrayList<>();
                                all.add(first);
                                all.addAll(rest);
                                return (ReceiverServer) new Bound(all);
                            }));
        });
    }

    private record One(ReceiverServer server, Mono<Void> outcome) implements SingleStreamServer {

        @Override
        public InetSocketAddress address() {
            return server.address();
        }

        @Override
        public List<String> transports() {
            return server.transports();
        }

        @Override
        public void dispose() {
            server.dispose();
        }

        @Override
        public boolean isDisposed() {
            return server.isDisposed();
        }
    }

    private record Bound(List<TransportServer> servers) implements ReceiverServer {

        @Override
        public InetSocketAddress address() {
            return servers.get(0).address();
        }

        @Override
        public List<String> transports() {
            return servers.stream().map(TransportServer::name).toList();
        }

        @Override
        public void dispose() {
            servers.forEach(TransportServer::dispose);
        }

        @Override
        public boolean isDisposed() {
            return servers.stream().allMatch(TransportServer::isDisposed);
        }
    }
}
