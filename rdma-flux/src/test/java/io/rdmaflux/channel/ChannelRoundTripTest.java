package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.memory.MemoryTransport;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Whole streams through the engine over the in-memory transport and real TCP on loopback. */
class ChannelRoundTripTest {

    private static final ChannelOptions SMALL = ChannelOptions.defaults().withFrameSize(4096).withReceiveSlots(4).withSendSlots(3);

    static Stream<Arguments> cases() {
        return Stream.of("memory", "tcp").flatMap(t -> Stream.of(
                Arguments.of(t, 0, 1000), Arguments.of(t, 1, 1000), Arguments.of(t, 4095, 4096),
                Arguments.of(t, 4096, 4096), Arguments.of(t, 4097, 100), Arguments.of(t, 300_000, 20_000),
                Arguments.of(t, 1_000_003, 4096)));
    }

    static Transport transport(String name) {
        return name.equals("memory") ? new MemoryTransport() : new TcpTransport();
    }

    @ParameterizedTest(name = "{0}: {1} bytes in pieces up to {2}")
    @MethodSource("cases")
    void streamArrivesWhole(String transportName, int size, int maxPiece) {
        Transport transport = transport(transportName);
        byte[] data = TestData.bytes(size, size);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport).options(SMALL)
                .handle(in -> in.receive().doOnNext(b -> {
                    byte[] copy = new byte[b.remaining()];
                    b.get(copy);
                    received.write(copy, 0, copy.length);
                }).then())
                .bind().block(Duration.ofSeconds(10));
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(transport).options(SMALL)
                    .send(Flux.fromIterable(TestData.pieces(data, 7, maxPiece)))
                    .block(Duration.ofSeconds(30));
        } finally {
            server.dispose();
        }
        assertThat(TestData.sha256(received.toByteArray())).isEqualTo(TestData.sha256(data));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void wrongKeyIsRefusedOnBothSidesBeforeData(String transportName) {
        Transport transport = transport(transportName);
        Mono<Void> receiver = FluxReceiver.create().host("127.0.0.1").port(0).key("right").transport(transport)
                .handle(in -> in.receive().then())
                .bind()
                .flatMap(server -> FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("wrong")
                        .transport(transport).send(Flux.just(ByteBuffer.wrap(new byte[10])))
                        .doFinally(s -> server.dispose()));
        assertThatThrownBy(() -> receiver.block(Duration.ofSeconds(10)))
                .isInstanceOf(RdmaFluxException.class)
                .hasMessageContaining("authentication failed")
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.AUTHENTICATION));
    }

    /** Each side names the other: the sender hears of the receiver's different key, not of "the sender at ...". */
    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aWrongKeyOnTheSenderNamesTheReceiver(String transportName) {
        Transport transport = transport(transportName);
        Mono<Void> sender = FluxReceiver.create().host("127.0.0.1").port(0).key("right").transport(transport)
                .handle(in -> in.receive().then())
                .bind()
                .flatMap(server -> FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("wrong")
                        .transport(transport).send(Flux.just(ByteBuffer.wrap(new byte[10])))
                        .doFinally(s -> server.dispose()));
        assertThatThrownBy(() -> sender.block(Duration.ofSeconds(10)))
                .isInstanceOf(RdmaFluxException.class)
                .hasMessageStartingWith("authentication failed: the receiver at ")
                .hasMessageContaining(" uses a different key")
                .hasMessageNotContaining("sender")
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.AUTHENTICATION));
    }

    static Stream<String> transports() {
        return Stream.of("memory", "tcp");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void slowConsumerSlowsTheSenderWithoutError(String transportName) {
        Transport transport = transport(transportName);
        byte[] data = TestData.bytes(3, 200_000);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport).options(SMALL)
                .handle(in -> in.receiveChunks()
                        .publishOn(Schedulers.boundedElastic(), 1)
                        .doOnNext(c -> {
                            sleep(2);
                            byte[] copy = new byte[c.remaining()];
                            c.buffer().get(copy);
                            received.write(copy, 0, copy.length);
                            c.release();
                        }).then())
                .bind().block(Duration.ofSeconds(10));
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(transport).options(SMALL)
                    .send(Flux.fromIterable(TestData.pieces(data, 1, 4096)))
                    .block(Duration.ofSeconds(30));
        } finally {
            server.dispose();
        }
        assertThat(received.toByteArray()).isEqualTo(data);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void failingHandlerFailsTheSenderWithItsReason(String transportName) {
        Transport transport = transport(transportName);
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport).options(SMALL)
                .handle(in -> in.receive().take(2).then(Mono.error(new java.io.IOException("No space left on device"))))
                .bind().block(Duration.ofSeconds(10));
        try {
            assertThatThrownBy(() -> FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                    .transport(transport).options(SMALL)
                    .send(Flux.range(0, 100).map(i -> ByteBuffer.wrap(new byte[4096])))
                    .block(Duration.ofSeconds(10)))
                    .isInstanceOf(RdmaFluxException.class)
                    .hasMessageContaining("No space left on device");
        } finally {
            server.dispose();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void framesSentFromManyThreadsArriveInOrder(String transportName) {
        // The source emits on its own thread while credits arriving on the transport's thread
        // also send frames; both paths must feed one ordered queue.
        Transport transport = transport(transportName);
        byte[] data = TestData.bytes(11, 8_000_000);
        java.security.MessageDigest digest = sha256();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport).options(SMALL)
                .handle(in -> in.receive().doOnNext(digest::update).then())
                .bind().block(Duration.ofSeconds(10));
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(transport).options(SMALL)
                    .send(Flux.fromIterable(TestData.pieces(data, 5, 9000)).publishOn(Schedulers.boundedElastic(), 2))
                    .block(Duration.ofSeconds(60));
        } finally {
            server.dispose();
        }
        assertThat(java.util.HexFormat.of().formatHex(digest.digest())).isEqualTo(TestData.sha256(data));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aHandlerFailingAfterTheStreamEndedIsReportedNotDropped(String transportName) {
        // The whole stream fits the receive ring, so END is verified before the handler
        // fails (a disk that fills on the last writes): no error may be dropped on the floor.
        java.util.concurrent.atomic.AtomicInteger dropped = new java.util.concurrent.atomic.AtomicInteger();
        reactor.core.publisher.Hooks.onErrorDropped(e -> dropped.incrementAndGet());
        try {
            Transport transport = transport(transportName);
            ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(transport)
                    .options(SMALL)
                    .handle(in -> in.receive().then(Mono.delay(Duration.ofMillis(100)))
                            .then(Mono.error(new java.io.IOException("No space left on device"))))
                    .bind().block(Duration.ofSeconds(10));
            try {
                assertThatThrownBy(() -> FluxSender.create().host("127.0.0.1").port(server.address().getPort())
                        .key("k").transport(transport).options(SMALL)
                        .send(Flux.just(ByteBuffer.wrap(new byte[100])))
                        .block(Duration.ofSeconds(10)))
                        .hasMessageContaining("No space left on device");
            } finally {
                server.dispose();
            }
            sleep(200);
            assertThat(dropped.get()).as("errors dropped").isZero();
        } finally {
            reactor.core.publisher.Hooks.resetOnErrorDropped();
        }
    }

    static java.security.MessageDigest sha256() {
        try {
            return java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
