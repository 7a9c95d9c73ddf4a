package io.rdmaflux.pipeline;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.transport.TransportKind;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * The channel's sending end as a pipeline sink: connects to a {@link ReceiveSource} (or an
 * {@code rdrecv}), applies the pipeline's stages per session with keys derived from the shared
 * key and the session's nonces, announces them in the stream metadata, and succeeds when the
 * receiver has confirmed the whole stream. Immutable.
 *
 * <pre>{@code
 * Pipeline.from(FileSource.of(path)).via(ZstdStage.spec(1), AesGcmStage.spec())
 *         .to(SendSink.create("backup", 7691, key).options(ChannelOptions.defaults().withFrameSize(4 << 20)))
 *         .run();
 * }</pre>
 *
 * <p>Its {@link SinkResult} counts the bytes sent (after the stages) and names the receiver.
 */
public final class SendSink implements PipelineSink {

    private final Mono<InetSocketAddress> address;
    private final String where;
    private final byte[] key;
    private final TransportKind transport;
    private final ChannelOptions options;

    private SendSink(Mono<InetSocketAddress> address, String where, byte[] key, TransportKind transport,
                     ChannelOptions options) {
        this.address = address;
        this.where = where;
        this.key = key;
        this.transport = transport;
        this.options = options;
    }

    /** A sink sending to {@code host:port} with the shared key, AUTO transport and default options. */
    public static SendSink create(String host, int port, byte[] key) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
        Objects.requireNonNull(host, "host");
        return new SendSink(Mono.just(InetSocketAddress.createUnresolved(host, port)), host + ":" + port,
                Objects.requireNonNull(key, "key").clone(), TransportKind.AUTO, ChannelOptions.defaults());
    }

    /** {@link #create} for an address held as one value (unresolved: looked up when connecting). */
    public static SendSink to(InetSocketAddress address, byte[] key) {
        return create(address.getHostString(), address.getPort(), key);
    }

    /**
     * A sink whose receiver is known only once the pipeline runs: it connects when
     * {@code address} gives it (a coordinator that starts the receiving end at the same time
     * tells it later). Nothing is read from the source before that.
     */
    public static SendSink deferred(Mono<InetSocketAddress> address, byte[] key) {
        return new SendSink(Objects.requireNonNull(address, "address").cache(), "(an address given later)",
                Objects.requireNonNull(key, "key").clone(), TransportKind.AUTO, ChannelOptions.defaults());
    }

    /** AUTO (RDMA when usable, else TCP), RDMA or TCP. */
    public SendSink transport(TransportKind transport) {
        return new SendSink(address, where, key, Objects.requireNonNull(transport), options);
    }

    /** Frame size, slots, timeouts; the stages' blocks are sized to the frame size. */
    public SendSink options(ChannelOptions options) {
        return new SendSink(address, where, key, transport, Objects.requireNonNull(options));
    }

    @Override
    public Mono<SinkResult> write(Upstream upstream) {
        return address.flatMap(to -> {
            ChannelCodecs.prepare(upstream.chain(), true);
            AtomicLong sent = new AtomicLong();
            String target = to.getHostString() + ":" + to.getPort();
            return FluxSender.create().host(to.getHostString()).port(to.getPort()).key(key).transport(transport)
                    .options(options)
                    .send(upstream.announcedMetadata(), session -> upstream.data(CodecContext.forSession(session, key))
                            .doOnNext(c -> sent.addAndGet(c.remaining())))
                    .then(Mono.fromSupplier(() -> new SinkResult(sent.get(), target)))
                    .onErrorMap(e -> ChannelCodecs.altered(upstream.chain(), e));
        });
    }

    @Override
    public boolean providesSessionKey() {
        return true;
    }

    @Override
    public int frameSize() {
        return options.frameSize();
    }

    @Override
    public String describe() {
        return "send to " + where;
    }

    @Override
    public String toString() {
        return "SendSink[" + where + ", " + transport + "]";
    }
}
