package io.rdmaflux.pipeline;

import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportKind;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A source that receives a given number of streams on one port, each handed to the downstream
 * as a stream of its own, at once or one after another: the listings of a sync to many hosts
 * ({@code rdcp --sync --to}), every host's sent to the one port the source reported. Streams
 * arrive as sent (no codec stages). Completes once all have been accepted; fails with the
 * first that fails, or when they have not all arrived within the timeout. Immutable.
 */
public final class ReceiveMany implements PipelineSource {

    private final ReceiveSettings settings;
    private final int count;

    /** Where and how to listen: the bind address, the port (0: pick one), the key, the transport, the wait. */
    public record ReceiveSettings(String bind, int port, byte[] key, TransportKind transport, Duration timeout) {

        /** Checks the values. */
        public ReceiveSettings {
            Objects.requireNonNull(bind, "bind");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(timeout, "timeout");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
        }
    }

    private ReceiveMany(ReceiveSettings settings, int count) {
        this.settings = settings;
        this.count = count;
    }

    /** {@code count} streams (at least 1) received with {@code settings}. */
    public static ReceiveMany of(ReceiveSettings settings, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        return new ReceiveMany(Objects.requireNonNull(settings, "settings"), count);
    }

    @Override
    public Mono<SinkResult> open(Downstream downstream) {
        return Mono.defer(() -> {
            AtomicInteger accepted = new AtomicInteger();
            // The server logs a stream's failure only: this is where the run hears of it.
            Sinks.Empty<Void> all = Sinks.empty();
            Mono<Void> work = FluxReceiver.create()
                    .host(settings.bind()).port(settings.port()).key(settings.key()).transport(settings.transport())
                    .handle(in -> downstream.another().accept(new SourceStream(in.receiveChunks(), in.metadata(), () -> 0L))
                            .doOnSuccess(r -> {
                                if (accepted.incrementAndGet() == count) {
                                    all.tryEmitEmpty();
                                }
                            })
                            .doOnError(all::tryEmitError)
                            .then())
                    .bind()
                    .flatMap(server -> {
                        downstream.listener().onListening(server.address(), server.transports());
                        Mono<Void> done = all.asMono();
                        if (!settings.timeout().isZero()) {
                            done = done.timeout(settings.timeout(), Mono.error(() -> new RdmaFluxException(
                                    ErrorCode.TIMEOUT, accepted.get() + " of " + count + " senders arrived within "
                                    + settings.timeout().toSeconds() + " s")));
                        }
                        return done.doFinally(s -> server.dispose());
                    });
            return work.then(Mono.fromSupplier(() -> new SinkResult(0, count + " streams received")));
        });
    }

    @Override
    public String describe() {
        return "receive " + count + " streams on " + settings.bind() + ":" + settings.port();
    }

    @Override
    public String toString() {
        return "ReceiveMany[" + settings.bind() + ":" + settings.port() + ", " + count + ", " + settings.transport() + "]";
    }
}
