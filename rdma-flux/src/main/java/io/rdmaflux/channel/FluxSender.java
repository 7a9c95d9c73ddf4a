package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;
import reactor.netty.resources.LoopResources;

/**
 * The sending side of a channel: connects to a {@link FluxReceiver} and sends one stream.
 * Immutable; each setter returns a configured copy, as reactor-netty's clients do, so one
 * configured sender can be shared and refined freely. Each setter checks its value at once and
 * throws an {@link IllegalArgumentException} naming the option; the one option that must be
 * set, the key, is checked when {@code send}'s {@code Mono} is subscribed (it fails with
 * {@link IllegalStateException}).
 *
 * <pre>{@code
 * Mono<Void> done = FluxSender.create()
 *         .host("backup").port(7691).key(secret)
 *         .send(Flux.just(ByteBuffer.wrap(bytes)));
 * }</pre>
 *
 * <p>The returned {@code Mono} completes only when the receiver has confirmed the whole stream
 * (its END_ACK), after its application finished with the data. Buffers given to {@code send}
 * belong to the channel from then on: do not modify them.
 */
public final class FluxSender {

    private static final Logger log = Loggers.getLogger(FluxSender.class);
    /** How much longer than the connect timeout one attempt may take before it counts as lost. */
    private static final Duration CONNECT_GRACE = Duration.ofSeconds(5);

    private final String host;
    private final int port;
    private final byte[] key;
    private final TransportKind kind;
    private final Transport transport;
    private final ChannelOptions options;
    /** The caller's event loops for TCP, or null for the default ones. */
    private final LoopResources loops;
    /** What {@link #send(Publisher)} sends as the stream's metadata. */
    private final StreamMetadata metadata;
    /** Entries of the caller's Context that travel in the metadata ({@link #carryContext}). */
    private final List<String> contextKeys;
    private final StreamObserver observer;
    /** Where connections wait between streams ({@link #pool}), or null: a connection per stream. */
    private final SenderPool pool;

    private FluxSender(String host, int port, byte[] key, TransportKind kind, Transport transport, ChannelOptions options,
                       LoopResources loops, StreamMetadata metadata, List<String> contextKeys, StreamObserver observer,
                       SenderPool pool) {
        this.pool = pool;
        this.loops = loops;
        this.metadata = metadata;
        this.contextKeys = contextKeys;
        this.observer = observer;
        this.host = host;
        this.port = port;
        this.key = key;
        this.kind = kind;
        this.transport = transport;
        this.options = options;
    }

    /** A sender to localhost:7691 with AUTO transport and default options; set at least the key. */
    public static FluxSender create() {
        return new FluxSender("localhost", 7691, null, TransportKind.AUTO, null, ChannelOptions.defaults(), null,
                StreamMetadata.empty(), List.of(), StreamObserver.NONE, null);
    }

    /** The receiver's host name or address (not blank). */
    public FluxSender host(String host) {
        return new FluxSender(Check.notBlank(host, "host"), port, key, kind, transport, options, loops, metadata, contextKeys, observer, pool);
    }

    /** The receiver's port, 1 to 65535. */
    public FluxSender port(int port) {
        return new FluxSender(host, Check.between(port, 1, 65535, "port"), key, kind, transport, options, loops, metadata, contextKeys, observer, pool);
    }

    /** The shared key (not empty); both sides must use the same bytes. The array is copied. */
    public FluxSender key(byte[] key) {
        return new FluxSender(host, port, Check.key(key), kind, transport, options, loops, metadata, contextKeys, observer, pool);
    }

    /** The shared key as text (UTF-8), as rdma-pipe's tools take it. */
    public FluxSender key(String key) {
        return key(Check.notNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /** Which transports to try: AUTO (RDMA when usable, then TCP), RDMA or TCP. */
    public FluxSender transport(TransportKind kind) {
        return new FluxSender(host, port, key, Check.notNull(kind, "transport"), null, options, loops, metadata, contextKeys, observer, pool);
    }

    /** Uses this transport instance (the in-memory one in tests, say). */
    public FluxSender transport(Transport transport) {
        return new FluxSender(host, port, key, TransportKind.AUTO, Check.notNull(transport, "transport"), options, loops, metadata, contextKeys, observer, pool);
    }

    /** The channel's tunables; both sides should agree on them (see {@link ChannelOptions}). */
    public FluxSender options(ChannelOptions options) {
        return new FluxSender(host, port, key, kind, transport, Check.notNull(options, "options"), loops, metadata, contextKeys, observer, pool);
    }

    /**
     * Entries of the Reactor {@code Context} to carry to the receiver, by key: each one present
     * in the Context of {@code send}'s subscriber travels in the stream's metadata as text (its
     * {@code toString()}, under {@link StreamMetadata#CONTEXT_PREFIX} and the key), and the
     * receiver's handler finds it in its own Context under the same key, as a String. For a
     * trace id:
     *
     * <pre>{@code
     * sender.carryContext("trace-id").send(data).contextWrite(Context.of("trace-id", traceId));
     * // on the receiver:
     * .handle(in -> Mono.deferContextual(ctx -> store(ctx.get("trace-id"), in)))
     * }</pre>
     *
     * The keys replace those set before; what they carry counts against the metadata's 64 KiB.
     */
    public FluxSender carryContext(String... keys) {
        List<String> checked = java.util.Arrays.stream(Check.notNull(keys, "keys"))
                .map(k -> Check.notBlank(k, "context key")).toList();
        return new FluxSender(host, port, key, kind, transport, options, loops, metadata, checked, observer, pool);
    }

    /** Tells {@code observer} of each stream's start and end (see {@link StreamObserver}). */
    public FluxSender observe(StreamObserver observer) {
        return new FluxSender(host, port, key, kind, transport, options, loops, metadata, contextKeys,
                Check.notNull(observer, "observer"), pool);
    }

    /**
     * Runs TCP connections on these event loops instead of the channel's default ones, as
     * reactor-netty's {@code runOn}: a service sizes and owns its loops, and
     * {@link Transports#shutdown} leaves them running. RDMA keeps its own threads; a transport
     * given as an instance ({@link #transport(Transport)}) is used as it is.
     */
    public FluxSender runOn(LoopResources loops) {
        return new FluxSender(host, port, key, kind, transport, options, Check.notNull(loops, "loops"), metadata,
                contextKeys, observer, pool);
    }

    /**
     * Keeps connections in {@code pool} between streams, as reactor-netty's clients keep theirs
     * in a {@code ConnectionProvider}: a stream to a receiver that has an idle connection in the
     * pool (same host, port, transport, options and key) goes on it, with one round trip to agree
     * on fresh keys instead of a connect and a handshake, and a stream that ends well leaves its
     * connection there for the next (receivers bound with {@link FluxReceiver#bind()} agree;
     * others close after the stream, as without a pool). See {@link SenderPool}.
     */
    public FluxSender pool(SenderPool pool) {
        return new FluxSender(host, port, key, kind, transport, options, loops, metadata, contextKeys, observer,
                Check.notNull(pool, "pool"));
    }

    /**
     * The metadata {@link #send(Publisher)} sends with the stream (default: none), for a
     * receiver's handler to read from {@link InboundStream#metadata()}: a name, a size, entries
     * of the caller's own. (A {@code send(StreamMetadata, Publisher<ByteBuffer>)} overload would
     * make every {@code send(metadata, session -> ...)} call ambiguous, so it is set here.)
     */
    public FluxSender metadata(StreamMetadata metadata) {
        return new FluxSender(host, port, key, kind, transport, options, loops, Check.notNull(metadata, "metadata"),
                contextKeys, observer, pool);
    }

    /** Sends plain buffers as one stream, with the {@link #metadata(StreamMetadata)} set (none by default). */
    public Mono<Void> send(Publisher<ByteBuffer> data) {
        return send(metadata, session -> Flux.from(data).map(Chunk::wrap));
    }

    /**
     * Sends one stream. {@code body} is called once the receiver is authenticated, with the
     * session (codec stages derive their keys from it), and returns the chunks to send; each
     * chunk is released once its bytes have left this host.
     */
    public Mono<Void> send(StreamMetadata metadata, Function<Session, ? extends Publisher<Chunk>> body) {
        if (key == null) {
            return Mono.error(new IllegalStateException("no key set"));
        }
        return Mono.deferContextual(context -> {
            StreamMetadata carried = ContextCarriage.carry(metadata, context, contextKeys);
            if (pool != null) {
                return sendPooled(pool, carried, body);
            }
            return connect()
                    .doOnError(e -> Observation.unconnected(observer, StreamOutcome.Side.SENDER, host + ":" + port, e))
                    .flatMap(c -> new SenderSession(c, key, options, carried, body).observe(observer).run());
        });
    }

    /**
     * Sends on an idle connection of the pool if there is one, else on a new connection that
     * the pool keeps afterwards. An idle connection found closed before the receiver answered
     * the stream's NEXT is replaced by a new one, once: the body had not run yet.
     */
    private Mono<Void> sendPooled(SenderPool pool, StreamMetadata carried, Function<Session, ? extends Publisher<Chunk>> body) {
        Object remote = new Remote(host, port, transport != null ? transport : kind, options, loops, digest(key));
        KeptConnection.Lease lease = pool.take(remote);
        if (lease == null) {
            return sendOnNew(pool, remote, carried, body);
        }
        log.debug("reusing {}", lease.describe());
        return new SenderSession(lease, key, options, carried, body).observe(observer).run()
                .onErrorResume(SenderSession.StaleConnection.class, e -> {
                    log.debug("kept connection {} was closed: {}; sending on a new one", lease.describe(), e.getMessage());
                    return sendOnNew(pool, remote, carried, body);
                });
    }

    private Mono<Void> sendOnNew(SenderPool pool, Object remote, StreamMetadata carried,
                                 Function<Session, ? extends Publisher<Chunk>> body) {
        return connect()
                .doOnError(e -> Observation.unconnected(observer, StreamOutcome.Side.SENDER, host + ":" + port, e))
                .flatMap(c -> {
                    SenderSession session = new SenderSession(new KeptConnection(c, pool.idleFor(remote)).first(), key,
                            options, carried, body);
                    session.features |= io.rdmaflux.internal.protocol.Hello.REUSES;
                    return session.observe(observer).run();
                });
    }

    /** What a kept connection is for: streams with the same of these may share it. */
    private record Remote(String host, int port, Object transport, ChannelOptions options, LoopResources loops,
                          java.nio.ByteBuffer keyDigest) {
    }

    /** The key's SHA-256, so that the pool's keys do not hold the key itself. */
    private static java.nio.ByteBuffer digest(byte[] key) {
        try {
            return java.nio.ByteBuffer.wrap(java.security.MessageDigest.getInstance("SHA-256").digest(key));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** Connects, retrying refused connections until the connect timeout passes. */
    private Mono<FrameConnection> connect() {
        return Mono.defer(() -> {
            InetSocketAddress address = new InetSocketAddress(host, port);
            if (address.isUnresolved()) {
                return Mono.error(new RdmaFluxException(ErrorCode.CONNECT, "cannot resolve host '" + host + "'"));
            }
            return Transports.choose(kind, transport, loops).flatMap(candidates -> attempt(candidates, 0, address, options)
                    .retryWhen(ConnectRetry.spec(options.connectTimeout(),
                            e -> e instanceof RdmaFluxException pe && pe.code() == ErrorCode.CONNECT,
                            e -> new RdmaFluxException(ErrorCode.CONNECT, e.getMessage() + " (gave up after "
                                    + options.connectTimeout().toSeconds() + " s)"))))
                    .doOnNext(c -> log.debug("connected over {}", c.describe()));
        });
    }

    /** Tries each transport in turn; the last one's failure is the one reported. */
    private static Mono<FrameConnection> attempt(List<Transport> candidates, int i, InetSocketAddress address,
                                                ChannelOptions options) {
        Transport t = candidates.get(i);
        // Bounded here too: a connect whose event loop is shut down under it may never answer.
        Duration bound = options.connectTimeout().plus(CONNECT_GRACE);
        Mono<FrameConnection> m = t.connect(address, options.transportOptions())
                .timeout(bound, Mono.error(() -> new RdmaFluxException(ErrorCode.CONNECT, "cannot connect to "
                        + io.rdmaflux.transport.SocketAddresses.format(address) + " over " + t.name()
                        + ": no answer within " + bound.toSeconds() + " s")));
        if (i + 1 < candidates.size()) {
            m = m.onErrorResume(e -> {
                log.info("{} connect to {} failed ({}); trying the next transport", t.name(), address, e.getMessage());
                return attempt(candidates, i + 1, address, options);
            });
        }
        return m;
    }
}
