package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.netty.resources.LoopResources;

/**
 * A service's own event loops ({@code runOn}) carry its streams, and
 * {@link Transports#shutdown(Duration)}, which stops the channel's default loops, leaves them
 * running; and {@link FluxSender#metadata(StreamMetadata)} for plain buffers.
 */
class RunOnTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void streamsRunOnTheServicesLoopsWhichTheTransportsShutdownLeavesAlone() {
        LoopResources loops = LoopResources.create("svc-loops", 1, 2, true);
        try {
            Set<String> threads = ConcurrentHashMap.newKeySet();
            ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                    .transport(TransportKind.TCP).runOn(loops)
                    .handle(in -> in.receive().doOnNext(b -> threads.add(Thread.currentThread().getName())).then())
                    .bindNow(LIMIT);
            try {
                FluxSender sender = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                        .transport(TransportKind.TCP).runOn(loops);
                sender.send(Flux.just(ByteBuffer.allocate(100_000))).block(LIMIT);
                assertThat(threads).isNotEmpty().allMatch(n -> n.startsWith("svc-loops"), "a thread of the service's loops");

                Transports.shutdown(Duration.ofSeconds(5));

                assertThat(loops.isDisposed()).isFalse();
                assertThat(server.isDisposed()).as("the listener on the service's loops").isFalse();
                threads.clear();
                sender.send(Flux.just(ByteBuffer.allocate(50_000))).block(LIMIT);
                assertThat(threads).isNotEmpty().allMatch(n -> n.startsWith("svc-loops"), "a thread of the service's loops");
            } finally {
                server.disposeNow();
            }
        } finally {
            loops.disposeLater().block(LIMIT);
        }
    }

    @Test
    void plainBuffersCarryTheSendersMetadata() {
        AtomicReference<StreamMetadata> seen = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(Transports.tcp())
                .handle(in -> {
                    seen.set(in.metadata());
                    return in.receive().then();
                })
                .bindNow(LIMIT);
        try {
            StreamMetadata meta = StreamMetadata.empty().with("name", "report.csv");
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(Transports.tcp())
                    .metadata(meta).send(Flux.just(ByteBuffer.allocate(10))).block(LIMIT);
            assertThat(seen.get()).isEqualTo(meta);
        } finally {
            server.disposeNow();
        }
        assertThatThrownBy(() -> FluxSender.create().metadata(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metadata");
        assertThatThrownBy(() -> FluxSender.create().runOn(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("loops");
    }
}
