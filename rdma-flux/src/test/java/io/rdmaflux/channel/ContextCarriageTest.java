package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Chosen Reactor Context entries cross the wire with the stream (a trace id): the sender names
 * them ({@code carryContext}), the receiving handler finds them in its own Context. Real TCP
 * on loopback.
 */
class ContextCarriageTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void theEntriesTheSenderNamesReachTheReceivingHandlersContext() {
        AtomicReference<Map<String, String>> seen = new AtomicReference<>();
        AtomicReference<StreamMetadata> metadata = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(Transports.tcp())
                .handle(in -> Mono.deferContextual(ctx -> {
                    seen.set(Map.of("trace-id", ctx.getOrDefault("trace-id", "(none)"),
                            "tenant", ctx.getOrDefault("tenant", "(none)"),
                            "user", ctx.getOrDefault("user", "(none)")));
                    metadata.set(in.metadata());
                    return in.receive().then();
                }))
                .bind().block(WAIT);
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                    .transport(Transports.tcp())
                    .carryContext("trace-id", "tenant")
                    .send(Flux.just(ByteBuffer.wrap(new byte[100])))
                    // "tenant" is a number: it travels as text; "user" is not named, so stays here.
                    .contextWrite(Context.of("trace-id", "4bf92f35", "tenant", 42, "user", "alice"))
                    .block(WAIT);
        } finally {
            server.dispose();
        }
        assertThat(seen.get()).containsEntry("trace-id", "4bf92f35").containsEntry("tenant", "42")
                .containsEntry("user", "(none)");
        assertThat(metadata.get().context()).containsExactly(Map.entry("trace-id", "4bf92f35"),
                Map.entry("tenant", "42"));
        assertThat(metadata.get().get("context.trace-id")).isEqualTo("4bf92f35");
    }

    @Test
    void aNamedEntryAbsentFromTheContextIsNotSent() {
        StreamMetadata carried = ContextCarriage.carry(StreamMetadata.empty().with("name", "x"),
                Context.of("a", "1"), java.util.List.of("a", "b"));
        assertThat(carried.attributes()).containsExactly(Map.entry("name", "x"), Map.entry("context.a", "1"));
    }

    @Test
    void aBlankKeyIsRefusedByName() {
        assertThatThrownBy(() -> FluxSender.create().carryContext("trace-id", " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("context key");
    }
}
