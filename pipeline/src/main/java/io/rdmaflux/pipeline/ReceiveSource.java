package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportKind;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The channel's receiving end as a pipeline source: listens, takes the first stream whose
 * sender authenticates, decodes the codec chain that sender announced (as {@code rdrecv} does),
 * and passes the plain bytes on. Connections that are not rdma-flux senders are logged and
 * ignored. Immutable.
 *
 * <pre>{@code
 * Pipeline.from(ReceiveSource.create(0, key).requireEncryption(true))
 *         .to(FileSink.of(out))
 *         .listener(new PipelineListener() {
 *             public void onListening(InetSocketAddress a) { System.err.println("port " + a.getPort()); }
 *         })
 *         .run();
 * }</pre>
 *
 * <p>The run completes only after the sender has been told the stream arrived (its END_ACK),
 * so the process may exit at once. With port 0 the port is picked when the source binds and
 * reported to {@link PipelineListener#onListening}.
 */
public final class ReceiveSource implements PipelineSource {

    private final String bind;
    private final int port;
    private final byte[] key;
    private final TransportKind transport;
    private final ChannelOptions options;
    private final Duration timeout;
    private final boolean requireEncryption;
    /** Where the stream goes on to while this pipeline's sink writes it (a relay), or null. */
    private final SendSink forward;

    private ReceiveSource(String bind, int port, byte[] key, TransportKind transport, ChannelOptions options,
                          Duration timeout, boolean requireEncryption, SendSink forward) {
        this.bind = bind;
        this.port = port;
        this.key = key;
        this.transport = transport;
        this.options = options;
        this.timeout = timeout;
        this.requireEncryption = requireEncryption;
        this.forward = forward;
    }

    /** A source listening on all interfaces at {@code port} (0: pick one), with the shared key. */
    public static ReceiveSource create(int port, byte[] key) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
        }
        return new ReceiveSource("0.0.0.0", port, Objects.requireNonNull(key, "key").clone(), TransportKind.AUTO,
                ChannelOptions.defaults(), Duration.ZERO, false, null);
    }

    /** The local address to listen on (default: all interfaces). */
    public ReceiveSource bind(String address) {
        return new ReceiveSource(Objects.requireNonNull(address), port, key, transport, options, timeout, requireEncryption, forward);
    }

    /** AUTO (RDMA and TCP on the same port when RDMA is usable), RDMA or TCP. */
    public ReceiveSource transport(TransportKind transport) {
        return new ReceiveSource(bind, port, key, Objects.requireNonNull(transport), options, timeout, requireEncryption, forward);
    }

    public ReceiveSource options(ChannelOptions options) {
        return new ReceiveSource(bind, port, key, transport, Objects.requireNonNull(options), timeout, requireEncryption, forward);
    }

    /**
     * How long to wait for a sender (zero, the default: as long as it takes). Only the wait is
     * limited; a stream that arrived takes as long as it needs.
     */
    public ReceiveSource timeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative");
        }
        return new ReceiveSource(bind, port, key, transport, options, timeout, requireEncryption, forward);
    }

    /**
     * Whether to refuse a stream whose sender did not encrypt it. Without it, someone on the
     * path could strip encryption from the chain the sender announced.
     */
    public ReceiveSource requireEncryption(boolean require) {
        return new ReceiveSource(bind, port, key, transport, options, timeout, require, forward);
    }

    /**
     * Makes this source a relay: the stream it receives goes on to {@code next} (another
     * host's receive source) while this pipeline's sink writes it, encoded again with the chain
     * its sender announced. The run's outcome is this pipeline's own: the next host failing does
     * not fail it, nor does this sink failing stop the forward (see the chains of {@code rdcp --to}).
     */
    public ReceiveSource forward(SendSink next) {
        return new ReceiveSource(bind, port, key, transport, options, timeout, requireEncryption,
                Objects.requireNonNull(next, "next"));
    }

    @Override
    public Mono<SinkResult> open(Downstream downstream) {
        return Mono.defer(() -> {
            AtomicReference<SinkResult> result = new AtomicReference<>();
            AtomicBoolean arrived = new AtomicBoolean();
            AtomicReference<CodecChain> used = new AtomicReference<>(CodecChain.empty());
            // A command's own failure (its exit status) after the sender's: pipefail's rightmost.
            AtomicReference<ConnectorException> commandFailed = new AtomicReference<>();
            // Cancelling the outcome unbinds but leaves a stream in flight running: this ends
            // it, so that the sink cleans up and the sender is told why.
            Sinks.Empty<Void> cancelled = Sinks.empty();
            Mono<Void> work = FluxReceiver.create()
                    .host(bind).port(port).key(key).transport(transport).options(options)
                    .handle(in -> {
                        arrived.set(true);
                        // The chain travels in the metadata: refused here, before data, if unknown.
                        CodecChain chain = CodecChain.parse(in.metadata().codecs(), downstream.codecs());
                        if (requireEncryption && !chain.contains(AesGcmStage.NAME)) {
                            throw new RdmaFluxException(ErrorCode.CODEC, "the sender did not encrypt the stream, "
                                    + "and this receiver requires encryption (rdsend --encrypt, or an aes-256-gcm stage)");
                        }
                        used.set(chain);
                        ChannelCodecs.prepare(chain, false);
                        AtomicLong wire = new AtomicLong();
                        Flux<Chunk> data = in.receiveChunks().doOnNext(c -> wire.addAndGet(c.remaining()));
                        if (!chain.isEmpty()) {
                            data = chain.decode(data, CodecContext.forSession(in.session(), key));
                        }
                        Mono<SinkResult> accepted = forward == null
                                ? downstream.accept(new SourceStream(data, in.metadata(), wire::get))
                                : new Relay(forward).run(data, in.metadata(), wire::get, chain, downstream);
                        Mono<Void> handled = accepted
                                .doOnNext(result::set)
                                .doOnError(e -> {
                                    if (e instanceof ConnectorException ce && ce.exitStatus().isPresent()) {
                                        commandFailed.set(ce);
                                    }
                                })
                                .then();
                        return Mono.firstWithSignal(handled, cancelled.asMono().then(Mono.error(() ->
                                new RdmaFluxException(ErrorCode.CANCELLED, "the receiving pipeline was cancelled"))));
                    })
                    .bindOne()
                    .flatMap(server -> {
                        try {
                            downstream.listener().onListening(server.address(), server.transports());
                        } catch (RuntimeException e) {
                            server.dispose();
                            throw e;
                        }
                        return server.outcome();
                    });
            if (!timeout.isZero()) {
                Mono<Void> deadline = Mono.delay(timeout).flatMap(x -> arrived.get() ? Mono.never()
                        : Mono.error(new RdmaFluxException(ErrorCode.TIMEOUT, "no sender arrived within "
                                + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms"))));
                work = Mono.firstWithSignal(work, deadline);
            }
            return work.onErrorMap(e -> ChannelCodecs.altered(used.get(), e))
                    // The sender failed, and a filter's command then failed on its own, its input
                    // never ended (CommandFilter): its status is the one that counts, as a
                    // shell's pipefail takes the rightmost command that failed.
                    .onErrorMap(e -> commandFailed.get() != null && RdmaFluxException.isReportedByPeer(e),
                            e -> commandFailed.get())
                    .then(Mono.fromSupplier(result::get))
                    // A filter whose command exited 0 before the end of its input (head, say)
                    // ended the run successfully; the channel then told the sender that the
                    // receiver stopped reading, which is no failure of this side.
                    .onErrorResume(e -> result.get() != null && e instanceof RdmaFluxException pe
                            && pe.code() == ErrorCode.CANCELLED, e -> Mono.fromSupplier(result::get))
                    .doOnCancel(cancelled::tryEmitEmpty);
        });
    }

    @Override
    public String describe() {
        return "receive on " + bind + ":" + port + (forward == null ? "" : " and " + forward.describe());
    }

    @Override
    public String toString() {
        return "ReceiveSource[" + bind + ":" + port + ", " + transport + "]";
    }
}
