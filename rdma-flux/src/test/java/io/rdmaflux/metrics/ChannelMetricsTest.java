package io.rdmaflux.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.Transports;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The channel's meters in a real registry (SimpleMeterRegistry), over real TCP streams on
 * loopback: streams by result, failures by code, bytes, streams running and credits in flight.
 */
class ChannelMetricsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int FRAME = 4096;
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(FRAME)
            .withReceiveSlots(4).withSendSlots(4);

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final ChannelMetrics metrics = ChannelMetrics.of(registry);

    @Test
    void streamsBytesAndFailuresAreCountedOnBothSides() {
        ReceiverServer server = receiver("k", in -> "stop".equals(in.metadata().get("name"))
                ? in.receive().take(1).then() : in.receive().then());
        try {
            FluxSender sender = sender(server, "k");
            sender.send(data(3)).block(WAIT);
            sender.send(data(2)).block(WAIT);
            // Stopped by the receiver after one frame of an endless stream.
            assertThatThrownBy(() -> sender.send(io.rdmaflux.protocol.StreamMetadata.empty().with("name", "stop"),
                    s -> Flux.<Chunk>generate(g -> g.next(Chunk.wrap(ByteBuffer.allocate(FRAME))))).block(WAIT))
                    .isInstanceOf(RdmaFluxException.class);
            // A wrong key: an authentication failure on both sides.
            assertThatThrownBy(() -> sender(server, "other").send(data(1)).block(WAIT))
                    .isInstanceOf(RdmaFluxException.class);
        } finally {
            server.dispose();
        }
        // The receiver learns its outcomes once each connection has closed, maybe after the sender.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            for (String side : List.of("sender", "receiver")) {
                assertThat(count("rdmaflux.streams", side, "result", "succeeded")).as(side).isEqualTo(2);
                assertThat(count("rdmaflux.streams", side, "result", "stopped")).as(side).isEqualTo(1);
                assertThat(count("rdmaflux.streams", side, "result", "failed")).as(side).isEqualTo(1);
                assertThat(count("rdmaflux.stream.failures", side, "code", "AUTHENTICATION")).as(side).isEqualTo(1);
                assertThat(gauge("rdmaflux.streams.active", side)).as(side).isZero();
            }
        });
        // Five whole frames, and whatever of the stopped stream each side sent or took.
        assertThat(registry.get("rdmaflux.bytes").tag("side", "receiver").functionCounter().count())
                .isGreaterThanOrEqualTo(6 * FRAME);
        assertThat(registry.get("rdmaflux.bytes").tag("side", "sender").functionCounter().count())
                .isGreaterThanOrEqualTo(registry.get("rdmaflux.bytes").tag("side", "receiver").functionCounter().count());
    }

    @Test
    void aReceiverThatHoldsItsFramesLeavesTheSendersCreditsInFlight() {
        List<Chunk> held = new CopyOnWriteArrayList<>();
        AtomicBoolean releasing = new AtomicBoolean();
        ReceiverServer server = receiver("k", in -> in.receiveChunks().doOnNext(c -> {
            if (releasing.get()) {
                c.release();
            } else {
                held.add(c);
            }
        }).then());
        try {
            Mono<Void> sent = sender(server, "k").send(data(12)).cache();
            sent.subscribe(v -> { }, e -> { });
            // The ring holds 4 frames: the sender spends its 4 credits and waits for more.
            await().atMost(WAIT).until(() -> held.size() == 4
                    && gauge("rdmaflux.credits.in.flight", "sender") == 4);
            assertThat(gauge("rdmaflux.credits.in.flight", "receiver")).isEqualTo(4);
            assertThat(gauge("rdmaflux.streams.active", "sender")).isEqualTo(1);
            assertThat(gauge("rdmaflux.streams.active", "receiver")).isEqualTo(1);
            // No frame can arrive before a credit goes back: switch, then give the four back.
            releasing.set(true);
            held.forEach(Chunk::release);
            sent.block(WAIT);
        } finally {
            server.dispose();
        }
        assertThat(gauge("rdmaflux.credits.in.flight", "sender")).isZero();
        assertThat(gauge("rdmaflux.streams.active", "sender")).isZero();
        assertThat(registry.get("rdmaflux.bytes").tag("side", "sender").functionCounter().count())
                .isEqualTo(12.0 * FRAME);
    }

    private double count(String name, String side, String tag, String value) {
        return registry.get(name).tag("side", side).tag(tag, value).counter().count();
    }

    private double gauge(String name, String side) {
        return registry.get(name).tag("side", side).gauge().value();
    }

    private ReceiverServer receiver(String key,
            java.util.function.Function<io.rdmaflux.channel.InboundStream, Mono<Void>> handler) {
        return FluxReceiver.create().host("127.0.0.1").port(0).key(key).transport(Transports.tcp()).options(OPTIONS)
                .observe(metrics).handle(handler).bind().block(WAIT);
    }

    private FluxSender sender(ReceiverServer server, String key) {
        return FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(key)
                .transport(Transports.tcp()).options(OPTIONS).observe(metrics);
    }

    private static Flux<ByteBuffer> data(int frames) {
        return Flux.range(0, frames).map(i -> ByteBuffer.allocate(FRAME));
    }
}
