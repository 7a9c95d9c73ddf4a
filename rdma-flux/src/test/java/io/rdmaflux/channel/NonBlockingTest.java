package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Whole streams with stock BlockHound installed, as a service would install it (no allow-list
 * of the project's own): no blocking call may run on Netty's event loops or Reactor's
 * non-blocking schedulers, on success and on failure alike, over the default transport too.
 * A JVM of its own (the pom's {@code blockhound} execution): BlockHound stays installed.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.MethodName.class)
class NonBlockingTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    static {
        BlockHound.install();
    }

    /**
     * The default transport (AUTO: the RDMA probe, then TCP here), bound and sent from one of
     * Reactor's non-blocking threads, three streams in a row: the probe (which extracts and
     * loads a native library) and the seeding of the nonce generator must happen elsewhere.
     */
    @Test
    void streamsOverTheDefaultTransportFromANonBlockingCaller() {
        AtomicInteger dropped = new AtomicInteger();
        Hooks.onErrorDropped(e -> dropped.incrementAndGet());
        try {
            java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
            ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                    .handle(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then())
                    .bind().subscribeOn(Schedulers.parallel()).block(LIMIT);
            try {
                FluxSender sender = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k");
                for (int i = 1; i <= 3; i++) {
                    sender.send(Flux.just(java.nio.ByteBuffer.allocate(100_000)))
                            .subscribeOn(Schedulers.parallel()).block(LIMIT);
                    assertThat(received.get()).as("after stream %d", i).isEqualTo(i * 100_000L);
                }
            } finally {
                server.disposeNow();
            }
            assertThat(dropped.get()).as("errors dropped (BlockHound reports blocking calls this way)").isZero();
        } finally {
            Hooks.resetOnErrorDropped();
        }
    }

    @Test
    void aStreamAndItsTeardownNeverBlockANonBlockingThread() {
        AtomicInteger dropped = new AtomicInteger();
        Hooks.onErrorDropped(e -> dropped.incrementAndGet());
        try {
            TcpTransport tcp = new TcpTransport();
            byte[] data = TestData.bytes(1, 3_000_000);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(tcp)
                    .handle(in -> in.receive().doOnNext(b -> {
                        byte[] c = new byte[b.remaining()];
                        b.get(c);
                        got.write(c, 0, c.length);
                    }).then())
                    .bindOne().block(Duration.ofSeconds(10));
            Mono<Void> receiver = server.outcome().cache();
            receiver.subscribe(v -> { }, e -> { });
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(tcp)
                    .send(Flux.fromIterable(TestData.pieces(data, 2, 300_000)))
                    .block(Duration.ofSeconds(30));
            receiver.block(Duration.ofSeconds(10));
            assertThat(got.toByteArray()).isEqualTo(data);

            // A failure path too: a wrong key ends the sender; the receiver forgets it.
            SingleStreamServer refusing = FluxReceiver.create().host("127.0.0.1").port(0).key("a").transport(tcp)
                    .handle(in -> in.receive().then()).bindOne().block(Duration.ofSeconds(10));
            try {
                Mono<Void> wrong = FluxSender.create().host("127.0.0.1").port(refusing.address().getPort()).key("b")
                        .transport(tcp).send(Flux.just(java.nio.ByteBuffer.allocate(10)));
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> wrong.block(Duration.ofSeconds(10)))
                        .hasMessageContaining("authentication failed");
            } finally {
                refusing.dispose();
            }
            assertThat(dropped.get()).as("errors dropped (BlockHound reports blocking calls this way)").isZero();
        } finally {
            Hooks.resetOnErrorDropped();
        }
    }
}
