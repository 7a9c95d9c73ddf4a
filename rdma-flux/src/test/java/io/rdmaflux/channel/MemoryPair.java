package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A receiver and a sender joined by the in-memory transport, with the inbound stream handed to
 * the test so that it can subscribe however it likes (StepVerifier, the TCK, ...).
 */
final class MemoryPair implements AutoCloseable {

    static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(4096).withReceiveSlots(4).withSendSlots(4)
            .withLiveness(Duration.ofMillis(200), Duration.ofSeconds(5));

    final MemoryTransport transport = new MemoryTransport();
    final CompletableFuture<InboundStream> inbound = new CompletableFuture<>();
    final CompletableFuture<Void> handlerDone = new CompletableFuture<>();
    final ReceiverServer server;
    Mono<Void> sent;

    MemoryPair() {
        server = FluxReceiver.create().port(0).key("k").transport(transport).options(OPTIONS)
                .handle(in -> {
                    inbound.complete(in);
                    return Mono.fromFuture(handlerDone);
                })
                .bind().block(Duration.ofSeconds(5));
    }

    /** Starts sending; the returned Mono is cached and can be awaited later. */
    MemoryPair send(Function<Session, ? extends Publisher<Chunk>> body) {
        sent = FluxSender.create().port(server.address().getPort()).key("k").transport(transport).options(OPTIONS)
                .send(StreamMetadata.empty(), body).cache();
        sent.subscribe(v -> { }, e -> { });
        return this;
    }

    /** The inbound stream, once the sender's metadata has arrived. */
    InboundStream stream() {
        try {
            return inbound.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no stream arrived", e);
        }
    }

    @Override
    public void close() {
        handlerDone.complete(null);
        server.dispose();
    }
}
