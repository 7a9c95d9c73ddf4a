package io.rdmaflux.pipeline;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.transport.TransportKind;
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

    private final String host;
    private final int port;
    private final byte[] key;
    private final TransportKind transport;
    private final ChannelOptions options;

    private SendSink(String host, int port, byte[] key, TransportKind transport, ChannelOptions options) {
        this.host = host;
        this.port = port;
        this.key = key;
        this.transport = transport;
        this.options = options;
    }

    /** A sink sending to {@code host:port} with the shared key, AUTO transport and default options. */
    public static SendSink create(String host, int port, byte[] key) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
        return new SendSink(Objects.requireNonNull(host, "host"), port, Objects.requireNonNull(key, "key").clone(),
                TransportKind.AUTO, ChannelOptions.defaults());
    }

    /** AUTO (RDMA when usable, else TCP), RDMA or TCP. */
    public SendSink transport(TransportKind transport) {
        return new SendSink(host, port, key, Objects.requireNonNull(transport), options);
    }

    /** Frame size, slots, timeouts; the stages' blocks are sized to the frame size. */
    public SendSink options(ChannelOptions options) {
        return new SendSink(host, port, key, transport, Objects.requireNonNull(options));
    }

    @Override
    public Mono<SinkResult> write(Upstream upstream) {
        return Mono.defer(() -> {
            ChannelCodecs.prepare(upstream.chain());
            AtomicLong sent = new AtomicLong();
            return FluxSender.create().host(host).port(port).key(key).transport(transport).options(options)
                    .send(upstream.announcedMetadata(), session -> upstream.data(CodecContext.forSession(session, key))
                            .doOnNext(c -> sent.addAndGet(c.remaining())))
                    .then(Mono.fromSupplier(() -> new SinkResult(sent.get(), host + ":" + port)));
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
        return "send to " + host + ":" + port;
    }

    @Override
    public String toString() {
        return "SendSink[" + host + ":" + port + ", " + transport + "]";
    }
}
