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
import java.util.List;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

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

    private final String host;
    private final int port;
    private final byte[] key;
    private final TransportKind kind;
    private final Transport transport;
    private final ChannelOptions options;

    private FluxSender(String host, int port, byte[] key, TransportKind kind, Transport transport, ChannelOptions options) {
        this.host = host;
        this.port = port;
        this.key = key;
        this.kind = kind;
        this.transport = transport;
        this.options = options;
    }

    /** A sender to localhost:7691 with AUTO transport and default options; set at least the key. */
    public static FluxSender create() {
        return new FluxSender("localhost", 7691, null, TransportKind.AUTO, null, ChannelOptions.defaults());
    }

    /** The receiver's host name or address (not blank). */
    public FluxSender host(String host) {
        return new FluxSender(Check.notBlank(host, "host"), port, key, kind, transport, options);
    }

    /** The receiver's port, 1 to 65535. */
    public FluxSender port(int port) {
        return new FluxSender(host, Check.between(port, 1, 65535, "port"), key, kind, transport, options);
    }

    /** The shared key (not empty); both sides must use the same bytes. The array is copied. */
    public FluxSender key(byte[] key) {
        return new FluxSender(host, port, Check.key(key), kind, transport, options);
    }

    /** The shared key as text (UTF-8), as rdma-pipe's tools take it. */
    public FluxSender key(String key) {
        return key(Check.notNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /** Which transports to try: AUTO (RDMA when usable, then TCP), RDMA or TCP. */
    public FluxSender transport(TransportKind kind) {
        return new FluxSender(host, port, key, Check.notNull(kind, "transport"), null, options);
    }

    /** Uses this transport instance (the in-memory one in tests, say). */
    public FluxSender transport(Transport transport) {
        return new FluxSender(host, port, key, TransportKind.AUTO, Check.notNull(transport, "transport"), options);
    }

    /** The channel's tunables; both sides should agree on them (see {@link ChannelOptions}). */
    public FluxSender options(ChannelOptions options) {
        return new FluxSender(host, port, key, kind, transport, Check.notNull(options, "options"));
    }

    /** Sends plain buffers as one stream with no metadata. */
    public Mono<Void> send(Publisher<ByteBuffer> data) {
        return send(StreamMetadata.empty(), session -> Flux.from(data).map(Chunk::wrap));
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
        return connect().flatMap(c -> new SenderSession(c, key, options, metadata, body).run());
    }

    /** Connects, retrying refused connections until the connect timeout passes. */
    private Mono<FrameConnection> connect() {
        return Mono.defer(() -> {
            InetSocketAddress address = new InetSocketAddress(host, port);
            if (address.isUnresolved()) {
                return Mono.error(new RdmaFluxException(ErrorCode.CONNECT, "cannot resolve host '" + host + "'"));
            }
            List<Transport> candidates = transport != null ? List.of(transport) : Transports.select(kind);
            return attempt(candidates, 0, address, options)
                    .retryWhen(ConnectRetry.spec(options.connectTimeout(),
                            e -> e instanceof RdmaFluxException pe && pe.code() == ErrorCode.CONNECT,
                            e -> new RdmaFluxException(ErrorCode.CONNECT, e.getMessage() + " (gave up after "
                                    + options.connectTimeout().toSeconds() + " s)")))
                    .doOnNext(c -> log.info("connected over {}", c.describe()));
        });
    }

    /** Tries each transport in turn; the last one's failure is the one reported. */
    private static Mono<FrameConnection> attempt(List<Transport> candidates, int i, InetSocketAddress address,
                                                ChannelOptions options) {
        Transport t = candidates.get(i);
        Mono<FrameConnection> m = t.connect(address, options.transportOptions());
        if (i + 1 < candidates.size()) {
            m = m.onErrorResume(e -> {
                log.info("{} connect to {} failed ({}); trying the next transport", t.name(), address, e.getMessage());
                return attempt(candidates, i + 1, address, options);
            });
        }
        return m;
    }
}
