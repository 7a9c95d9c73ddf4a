package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportProvider;
import io.rdmaflux.transport.TransportProviders;
import io.rdmaflux.transport.memory.MemoryTransport;
import io.rdmaflux.transport.memory.MemoryTransportProvider;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Transports found by name through {@link TransportProvider}s: the built-in tcp and rdma, and
 * two defined in test code ({@code memory}, which works, and {@code unplugged}, which never
 * does), listed in {@code src/test/transport-providers} and nowhere else in the engine.
 */
class TransportProviderTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aTransportDefinedInTestCodeIsFoundAndCarriesAStreamWhenSelectedByName() {
        TransportKind memory = TransportKind.parse("Memory");
        assertThat(memory.name()).isEqualTo("memory");
        assertThat(Transports.select(memory)).singleElement().isSameAs(MemoryTransportProvider.shared());

        MemoryTransport shared = MemoryTransportProvider.shared();
        byte[] data = TestData.bytes(22, 100_003);
        AtomicReference<byte[]> received = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(memory)
                .handle(in -> in.aggregate(data.length).doOnNext(b -> {
                    byte[] got = new byte[b.remaining()];
                    b.get(got);
                    received.set(got);
                }).then())
                .bind().block(WAIT);
        try {
            assertThat(server.address().getPort()).isPositive();
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(memory)
                    .send(Flux.just(ByteBuffer.wrap(data))).block(WAIT);
        } finally {
            server.dispose();
        }
        assertThat(received.get()).isEqualTo(data);
        assertThat(shared.slotsInUse()).isZero();
    }

    @Test
    void theChoicesAreAutoAndEveryProviderFoundAndAnUnknownNameListsThem() {
        assertThat(TransportProviders.all()).extracting(TransportProvider::name)
                .containsExactly("memory", "rdma", "tcp", "unplugged");
        assertThat(TransportProviders.choices()).containsExactly("auto", "memory", "rdma", "tcp", "unplugged");
        assertThat(TransportKind.parse(" TCP ")).isSameAs(TransportKind.TCP);
        assertThat(TransportKind.parse("auto")).isSameAs(TransportKind.AUTO);
        assertThat(TransportKind.parse("rdma")).isSameAs(TransportKind.RDMA);
        assertThatThrownBy(() -> TransportKind.parse("infiniband")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown transport 'infiniband' (expected auto, memory, rdma, tcp or unplugged)");
        // A kind may name a transport that is not found here: selecting it says so in one line.
        assertThatThrownBy(() -> Transports.select(TransportKind.of("quic")))
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.TRANSPORT_UNAVAILABLE))
                .hasMessage("QUIC transport unavailable: this build has no QUIC transport");
        assertThatThrownBy(() -> TransportKind.of("no such")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a transport name: 'no such'");
    }

    @Test
    void anUnusableTransportFailsWhenNamedAndAutoGoesOnWithoutIt() {
        assertThatThrownBy(() -> Transports.select(TransportKind.parse("unplugged")))
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.TRANSPORT_UNAVAILABLE))
                .hasMessage("UNPLUGGED transport unavailable: no cable in this test");
        assertThat(Transports.unavailableReason("unplugged")).isEqualTo("no cable in this test");

        // AUTO: the usable transports that take part, best first; memory takes no part, unplugged is not usable.
        String rdma = Transports.rdmaUnavailableReason();
        assertThat(Transports.select(TransportKind.AUTO)).extracting(Transport::name)
                .containsExactlyElementsOf(rdma == null ? java.util.List.of("rdma", "tcp") : java.util.List.of("tcp"));
        if (rdma != null) {
            assertThatThrownBy(() -> Transports.select(TransportKind.RDMA))
                    .hasMessage("RDMA transport unavailable: " + rdma);
        }
        assertThat(Transports.select(TransportKind.TCP)).extracting(Transport::name).containsExactly("tcp");
    }
}
