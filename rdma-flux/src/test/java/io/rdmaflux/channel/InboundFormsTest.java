package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The safe forms of {@link InboundStream}: what a service does with received bytes (move them
 * to another thread, collect them) must not see them overwritten when the receive slot they
 * came in is reused. The ring has 4 slots and the streams are 40 frames or more, so every slot
 * is reused many times.
 */
class InboundFormsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ChannelOptions SMALL_RING = ChannelOptions.defaults().withFrameSize(4096)
            .withReceiveSlots(4).withSendSlots(4);

    static Transport transport(String name) {
        return name.equals("memory") ? new MemoryTransport() : Transports.tcp();
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "tcp"})
    void receiveSurvivesPublishOnAndCollectList(String transportName) {
        byte[] data = TestData.bytes(1, 40 * 4096 + 123);
        byte[] got = roundTrip(transport(transportName), data, in -> in.receive()
                .publishOn(Schedulers.boundedElastic(), 2)
                .collectList()
                .map(InboundFormsTest::concat));
        assertThat(TestData.sha256(got)).isEqualTo(TestData.sha256(data));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "tcp"})
    void aggregateGathersTheWholeStreamUpToItsBound(String transportName) {
        byte[] data = TestData.bytes(2, 300_000);
        byte[] got = roundTrip(transport(transportName), data,
                in -> in.aggregate(data.length).publishOn(Schedulers.boundedElastic()).map(InboundFormsTest::bytes));
        assertThat(TestData.sha256(got)).isEqualTo(TestData.sha256(data));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "tcp"})
    void aggregateFailsAStreamLongerThanItsBoundOnBothSides(String transportName) {
        byte[] data = TestData.bytes(3, 100_000);
        AtomicReference<Throwable> handlerSaw = new AtomicReference<>();
        assertThatThrownBy(() -> roundTrip(transport(transportName), data, in -> in.aggregate(data.length - 1)
                .doOnError(handlerSaw::set).map(InboundFormsTest::bytes)))
                .satisfies(e -> Outcomes.assertCode(e, ErrorCode.SINK_FAILED));
        assertThat(handlerSaw.get()).hasMessage("the stream is longer than the 99999 bytes aggregate(99999) accepts")
                .satisfies(e -> Outcomes.assertCode(e, ErrorCode.SINK_FAILED));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4095, 4096, 4097, 200_000})
    void aggregateTakesAStreamOfExactlyItsBound(int size) {
        byte[] data = TestData.bytes(4, size);
        MemoryTransport memory = new MemoryTransport();
        byte[] got = roundTrip(memory, data, in -> in.aggregate(size).map(InboundFormsTest::bytes));
        assertThat(got).isEqualTo(data);
        assertThat(memory.slotsInUse()).isZero();
    }

    @org.junit.jupiter.api.Test
    void aNegativeBoundIsRefusedWhenAsked() {
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> Flux.empty());
            assertThatThrownBy(() -> pair.stream().aggregate(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxBytes must be at least 0, was -1");
        }
    }

    /**
     * Sends {@code data} in frame-sized pieces; the handler's {@code read} result is what the
     * receiver got. Fails with the sender's error when the stream fails.
     */
    private static byte[] roundTrip(Transport transport, byte[] data, Function<InboundStream, Mono<byte[]>> read) {
        AtomicReference<byte[]> received = new AtomicReference<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport)
                .options(SMALL_RING)
                .handle(in -> read.apply(in).doOnNext(received::set).then())
                .bind().block(WAIT);
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(transport)
                    .options(SMALL_RING)
                    .send(Flux.fromIterable(TestData.pieces(data, 5, 4096)))
                    .block(WAIT);
        } finally {
            server.dispose();
        }
        return received.get();
    }

    private static byte[] concat(List<ByteBuffer> buffers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        buffers.forEach(b -> out.writeBytes(bytes(b.duplicate())));
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }
}
