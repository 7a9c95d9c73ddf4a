package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.netty.resources.LoopResources;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The receiving side of a channel: binds a port and hands each authenticated stream to a
 * handler. Immutable; each setter returns a configured copy, as reactor-netty's servers do, so
 * one configured receiver can be shared and refined freely. Each setter checks its value at
 * once and throws an {@link IllegalArgumentException} naming the option; the options that must
 * be set, the key and the handler, are checked when {@code bind}'s {@code Mono} is subscribed
 * (it fails with {@link IllegalStateException}).
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
 *
 * <p>Only an authenticated sender gets anything from a receiver. A connection that fails its
 * handshake (another program, another protocol version, a wrong key, silence past the
 * handshake timeout) is answered with an ERROR frame where possible, logged at info level
 * and forgotten. Until it authenticates a peer costs a small fixed amount and at most
 * {@link #maxUnauthenticated(int)} of them are held; when all places are taken, a newcomer
 * takes the place of the one that has waited longest, which is refused with
 * {@link ErrorCode#BUSY}, so that idle connections cannot keep a sender out.
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
    private final int maxUnauthenticated;
    /** Bytes; 0 for the default, {@link MemoryBudget#defaultLimit}. */
    private final long memoryBudget;
    /** The caller's event loops for TCP, or null for the default ones. */
    private final LoopResources loops;
    private final StreamObserver observer;
    /** How long a kept connection may wait idle for its sender's next stream; zero: none kept. */
    private final Duration keepAlive;

    /** Default of {@link #maxUnauthenticated(int)}. */
    public static final int DEFAULT_MAX_UNAUTHENTICATED = 32;

    /** Default of {@link #keepAlive(Duration)}: 30 seconds. */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(30);

    private FluxReceiver(String host, int port, byte[] key, TransportKind kind, Transport transport,
                         ChannelOptions options, Function<? super InboundStream, ? extends Publisher<Void>> handler,
                         int maxUnauthenticated, long memoryBudget, LoopResources loops, StreamObserver observer,
                         Duration keepAlive) {
        this.keepAlive = keepAlive;
        this.loops = loops;
        this.maxUnauthenticated = maxUnauthenticated;
        this.memoryBudget = memoryBudget;
        this.observer = observer;
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
        return new FluxReceiver("0.0.0.0", 7691, null, TransportKind.AUTO, null, ChannelOptions.defaults(), null,
                DEFAULT_MAX_UNAUTHENTICATED, 0, null, StreamObserver.NONE, DEFAULT_KEEP_ALIVE);
    }

    /** The local address to bind (default: all interfaces). */
    public FluxReceiver host(String host) {
        return new FluxReceiver(Check.notBlank(host, "host"), port, key, kind, transport, options, handler, maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** The port to bind, 0 to 65535; 0 picks a free one (see {@link ReceiverServer#address()}). */
    public FluxReceiver port(int port) {
        return new FluxReceiver(host, Check.between(port, 0, 65535, "port"), key, kind, transport, options, handler,
                maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** The shared key (not empty); both sides must use the same bytes. The array is copied. */
    public FluxReceiver key(byte[] key) {
        return new FluxReceiver(host, port, Check.key(key), kind, transport, options, handler, maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** The shared key as text (UTF-8), as rdma-pipe's tools take it. */
    public FluxReceiver key(String key) {
        return key(Check.notNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /** Which transports to listen on: AUTO (RDMA when usable, and TCP), RDMA or TCP. */
    public FluxReceiver transport(TransportKind kind) {
        return new FluxReceiver(host, port, key, Check.notNull(kind, "transport"), null, options, handler,
                maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** Uses this transport instance (the in-memory one in tests, say). */
    public FluxReceiver transport(Transport transport) {
        return new FluxReceiver(host, port, key, TransportKind.AUTO, Check.notNull(transport, "transport"), options,
                handler, maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** The channel's tunables; both sides should agree on them (see {@link ChannelOptions}). */
    public FluxReceiver options(ChannelOptions options) {
        return new FluxReceiver(host, port, key, kind, transport, Check.notNull(options, "options"), handler,
                maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /** What to do with each stream; the returned publisher completes when the handler is done. */
    public FluxReceiver handle(Function<? super InboundStream, ? extends Publisher<Void>> handler) {
        return new FluxReceiver(host, port, key, kind, transport, options, Check.notNull(handler, "handler"),
                maxUnauthenticated, memoryBudget, loops, observer, keepAlive);
    }

    /**
     * How many connections may be waiting to authenticate at once (default
     * {@value #DEFAULT_MAX_UNAUTHENTICATED}). One more takes the place of the one that has
     * waited longest, which is refused with {@link ErrorCode#BUSY}. Each has at most the
     * handshake timeout ({@link ChannelOptions}) to authenticate.
     */
    public FluxReceiver maxUnauthenticated(int max) {
        return new FluxReceiver(host, port, key, kind, transport, options, handler,
                Check.atLeast(max, 1, "maxUnauthenticated"), memoryBudget, loops, observer, keepAlive);
    }

    /**
     * The direct memory this receiver's streams may hold together, in bytes (default: half the
     * JVM's limit, {@code -XX:MaxDirectMemorySize}, and at least one stream's ring; for
     * {@link #bindOne()}, one stream's ring). Each
     * authenticated stream reserves its whole receive ring, frame size x receive slots
     * ({@link ChannelOptions}), for as long as it runs, and a connection kept idle for the
     * sender's next stream keeps it ({@link #keepAlive}); a stream that does not fit, once idle
     * kept connections are closed to make room, is refused
     * with {@link ErrorCode#BUSY} before any of its ring is allocated, and its sender's error
     * says that the receiver's memory budget was full. Binding fails with
     * {@link IllegalStateException} when the budget is smaller than one stream's ring.
     */
    public FluxReceiver memoryBudget(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("memoryBudget must be positive, was " + bytes);
        }
        return new FluxReceiver(host, port, key, kind, transport, options, handler, maxUnauthenticated, bytes, loops, observer, keepAlive);
    }

    /** The budget for this receiver's options; fails when even one stream cannot fit. */
    private MemoryBudget memory(boolean oneStream) {
        long perStream = (long) options.frameSize() * options.receiveSlots();
        // A one-stream receiver needs one ring whatever the default: it skips asking the JVM
        // for its limit (the management beans cost a tool's start-up some milliseconds).
        long limit = memoryBudget > 0 ? memoryBudget : oneStream ? perStream : MemoryBudget.defaultLimit(perStream);
        if (limit < perStream) {
            throw new IllegalStateException("memoryBudget of " + limit + " bytes is smaller than one stream's receive ring ("
                    + options.frameSize() + " bytes x " + options.receiveSlots() + " slots)");
        }
        return new MemoryBudget(limit, perStream);
    }

    /**
     * Runs TCP connections and the listener on these event loops instead of the channel's
     * default ones, as reactor-netty's {@code runOn}: a service sizes and owns its loops, and
     * {@link Transports#shutdown} leaves them running. RDMA keeps its own threads; a transport
     * given as an instance ({@link #transport(Transport)}) is used as it is.
     */
    public FluxReceiver runOn(LoopResources loops) {
        return new FluxReceiver(host, port, key, kind, transport, options, handler, maxUnauthenticated, memoryBudget,
                Check.notNull(loops, "loops"), observer, keepAlive);
    }

    /**
     * Binds and waits for it, at most {@code timeout}, as reactor-netty's {@code bindNow}.
     * Blocks: call it from a thread that may block, not from an event loop.
     *
     * @throws io.rdmaflux.error.RdmaFluxException CONNECT when the port cannot be bound
     * @throws IllegalStateException when the key or handler is not set, or the bind does not
     *                               finish within {@code timeout}
     * @throws IllegalArgumentException when {@code timeout} is null or not positive
     */
    public ReceiverServer bindNow(Duration timeout) {
        Check.positive(timeout, "timeout");
        return bind().timeout(timeout, Mono.error(() -> new IllegalStateException("receiver on " + host + ":" + port
                + " not bound within " + timeout.toMillis() + " ms"))).block();
    }

    /** {@link #bindNow(Duration)} with 45 seconds, reactor-netty's default. */
    public ReceiverServer bindNow() {
        return bindNow(Duration.ofSeconds(45));
    }

    /**
     * How long a connection may wait idle after a stream for its sender's next one (default 30
     * s); zero keeps none. A sender with a {@link SenderPool} offers to keep its connection after
     * each stream that ends well; this receiver agrees (on TCP: the transports that can idle a
     * connection between streams), and then takes the sender's next stream on it,
     * under fresh keys, without a new handshake. An idle connection keeps its receive ring for
     * that stream, counted in the {@link #memoryBudget}; a new stream that finds the budget
     * taken first closes idle connections, the longest idle first, and is refused only if that
     * is not enough. Idle connections close when this time passes and when the server is
     * disposed. A receiver of one stream ({@link #bindOne()}) never keeps a connection.
     */
    public FluxReceiver keepAlive(Duration keepAlive) {
        return new FluxReceiver(host, port, key, kind, transport, options, handler, maxUnauthenticated, memoryBudget, loops,
                observer, Check.notNegative(keepAlive, "keepAlive"));
    }

    /**
     * Tells {@code observer} of each stream's start and end, and of each connection that ends
     * before its stream started (see {@link StreamObserver}).
     */
    public FluxReceiver observe(StreamObserver observer) {
        return new FluxReceiver(host, port, key, kind, transport, options, handler, maxUnauthenticated, memoryBudget, loops,
                Check.notNull(observer, "observer"), keepAlive);
    }

    /** Binds and serves streams until the returned server is disposed. */
    public Mono<ReceiverServer> bind() {
        return Mono.defer(() -> bind(new Admission(maxUnauthenticated, false, memory(false)), !keepAlive.isZero(),
                session -> session.result().subscribe(
                null, e -> {
                    if (session.isAuthenticated()) {
                        log.warn("stream from {} failed: {}", session.peer(), e.getMessage());
                    } else {
                        log.debug("ignored a connection from {}: {}", session.peer(), e.getMessage());
                    }
                })));
    }

    /**
     * Binds, serves the first stream whose sender authenticates, then unbinds. Completes (or
     * fails) with that stream's outcome; connections that fail their handshake do not count.
     * The same as {@code bindOne().flatMap(SingleStreamServer::outcome)}.
     */
    public Mono<Void> receiveOne() {
        return bindOne().flatMap(SingleStreamServer::outcome);
    }

    /**
     * Binds for exactly one stream: the returned server knows its address at once (port 0
     * resolved), and its {@link SingleStreamServer#outcome()} is the stream's outcome, as
     * {@link #receiveOne()} gives it. The stream is the first sender's to authenticate; senders
     * that authenticate after it are refused with {@link ErrorCode#BUSY}, and so are
     * connections that arrive once it is taken.
     */
    public Mono<SingleStreamServer> bindOne() {
        return Mono.defer(() -> {
            Sinks.One<Void> outcome = Sinks.one();
            Admission admission = new Admission(maxUnauthenticated, true, memory(true));
            return bind(admission, false, session -> session.result().subscribe(
                    ok -> { },
                    e -> {
                        if (admission.stream() == session) {
                            outcome.tryEmitError(e);
                        } else {
                            log.debug("ignored a connection from {}: {}", session.peer(), e.getMessage());
                        }
                    },
                    // Only the session that has the stream gets past METADATA, so only it completes.
                    () -> outcome.tryEmitEmpty()))
                    // The stream is cancelled in doFinally, after the cancel has reached the
                    // sink: its failure then finds no cancelled subscriber to be dropped on.
                    .map(server -> new One(server, admission, outcome.asMono()
                            .doFinally(s -> {
                                ReceiverSession stream = admission.close();
                                if (s == SignalType.CANCEL && stream != null) {
                                    stream.cancel();
                                }
                                server.dispose();
                            })));
        });
    }

    private Mono<ReceiverServer> bind(Admission admission, boolean reuse, Consumer<ReceiverSession> onSession) {
        if (key == null) {
            return Mono.error(new IllegalStateException("no key set"));
        }
        if (handler == null) {
            return Mono.error(new IllegalStateException("no handler set"));
        }
        return Transports.choose(kind, transport, loops).flatMap(transports -> {
            LiveStreams live = new LiveStreams();
            if (reuse) {
                admission.closeIdleWith(live::closeOldestIdle);
            }
            KeptConnection.Idle idle = reuse ? new KeptStreams(live, admission, keepAlive, lease -> {
                ReceiverSession next = new ReceiverSession(lease, key, options, handler, admission).observe(observer);
                onSession.accept(live.add(next));
                return next.start();
            }) : null;
            Consumer<FrameConnection> acceptor = c -> {
                String refusal = admission.admit();
                if (refusal != null) {
                    log.debug("refused {}: {}", c.describe(), refusal);
                    refuse(c, refusal);
                    return;
                }
                log.debug("accepted {}", c.describe());
                boolean keep = idle != null && c.canIdle();
                FrameConnection conn = keep ? new KeptConnection(c, idle).first() : c;
                onSession.accept(live.add(new ReceiverSession(conn, key, options, handler, admission).offerReuse(keep)
                        .observe(observer)).start());
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
                                return (ReceiverServer) new Bound(all, live);
                            }));
        });
    }

    /** Answers a connection that gets no session with one ERROR(BUSY) frame, and closes it. */
    private static void refuse(FrameConnection c, String why) {
        c.start(FrameHandler.controlOnly((type, payload) -> { }, cause -> { }));
        c.sendControl(FrameType.ERROR, ControlFrames.error(ErrorCode.BUSY, why));
        c.close();
    }

    private record One(ReceiverServer server, Admission admission, Mono<Void> outcome) implements SingleStreamServer {

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
            admission.close();
            server.dispose();
        }

        @Override
        public Mono<Void> disposeGracefully(Duration timeout) {
            Check.positive(timeout, "timeout");
            return Mono.fromRunnable(admission::close).then(server.disposeGracefully(timeout));
        }

        @Override
        public boolean isDisposed() {
            return server.isDisposed();
        }

        @Override
        public Mono<Void> onDispose() {
            return server.onDispose();
        }
    }

    private record Bound(List<TransportServer> servers, LiveStreams live) implements ReceiverServer {

        @Override
        public Mono<Void> disposeGracefully(Duration timeout) {
            Check.positive(timeout, "timeout");
            return Mono.fromRunnable(this::dispose).then(live.drain(timeout)).then(onDispose());
        }

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
            live.closeIdle();
        }

        @Override
        public boolean isDisposed() {
            return servers.stream().allMatch(TransportServer::isDisposed);
        }

        @Override
        public Mono<Void> onDispose() {
            return Mono.when(servers.stream().map(TransportServer::onDispose).toList());
        }
    }
}
