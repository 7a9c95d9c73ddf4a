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

/**
 * Whole streams over TCP with BlockHound installed: no blocking call may run on Netty's event
 * loops or Reactor's non-blocking schedulers, on success and on failure alike.
 */
class NonBlockingTest {

    static {
        BlockHound.install(builder -> builder
                // Nonces come from SecureRandom, which reads /dev/urandom; on Linux that read
                // never waits, so it is allowed on the event loop where sessions begin.
                .allowBlockingCallsInside("io.rdmaflux.internal.protocol.Authenticator", "newNonce"));
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
