package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * A service sends from inside its own reactive chain: the data it sends must see that chain's
 * Reactor {@code Context} (a tenant, a trace id), as any operator upstream of its subscriber does.
 */
class SendContextTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    static Transport transport(String name) {
        return name.equals("memory") ? new MemoryTransport() : Transports.tcp();
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "tcp"})
    void plainSendSubscribesTheDataWithTheCallersContext(String transportName) {
        Flux<ByteBuffer> data = Flux.deferContextual(ctx -> Flux.just(ByteBuffer.wrap(
                ctx.get("tenant").toString().getBytes(StandardCharsets.UTF_8))));
        assertThat(sendAndReceive(transportName, sender -> sender.send(data))).isEqualTo("acme");
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "tcp"})
    void sendWithASessionBodySubscribesTheDataWithTheCallersContext(String transportName) {
        Function<Session, Flux<Chunk>> body = session -> Flux.deferContextual(ctx -> Flux.just(Chunk.wrap(
                ByteBuffer.wrap(ctx.get("tenant").toString().getBytes(StandardCharsets.UTF_8)))));
        assertThat(sendAndReceive(transportName, sender -> sender.send(StreamMetadata.empty(), body))).isEqualTo("acme");
    }

    /** Runs {@code send} with "tenant" = "acme" in the subscriber's Context; gives what arrived. */
    private static String sendAndReceive(String transportName, Function<FluxSender, Mono<Void>> send) {
        Transport transport = transport(transportName);
        AtomicReference<ByteBuffer> received = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport)
                .handle(in -> in.aggregate(1024).doOnNext(received::set).then())
                .bind().block(WAIT);
        try {
            send.apply(FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                            .transport(transport))
                    .contextWrite(Context.of("tenant", "acme"))
                    .block(WAIT);
        } finally {
            server.dispose();
        }
        return StandardCharsets.UTF_8.decode(received.get()).toString();
    }
}
