package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@link ReceiverServer#disposeGracefully(Duration)} over real TCP connections: it stops
 * listening at once, lets a stream in flight finish, and cancels one that outlasts the timeout.
 */
class GracefulDisposeTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withConnectTimeout(Duration.ZERO);

    @Test
    void aStreamInFlightFinishesWhileNewConnectionsAreRefused() throws InterruptedException {
        AtomicLong received = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);
        ReceiverServer server = receiver(received, started).bindNow(LIMIT);
        Sinks.Many<ByteBuffer> data = Sinks.many().unicast().onBackpressureBuffer();
        Mono<Void> sent = sender(server).send(data.asFlux()).cache();
        sent.subscribe(v -> { }, e -> { });
        data.tryEmitNext(ByteBuffer.allocate(1000));
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> disposed = server.disposeGracefully(LIMIT).toFuture();
        // The listener is gone at once: a new sender cannot connect.
        server.onDispose().block(LIMIT);
        assertThatThrownBy(() -> sender(server).send(reactor.core.publisher.Flux.just(ByteBuffer.allocate(1)))
                .block(LIMIT))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECT));
        assertThat(disposed).as("waits for the stream in flight").isNotDone();

        data.tryEmitNext(ByteBuffer.allocate(2000));
        data.tryEmitComplete();
        sent.block(LIMIT);
        Mono.fromFuture(disposed).block(LIMIT);
        assertThat(received.get()).isEqualTo(3000);
    }

    @Test
    void aStreamThatOutlastsTheTimeoutIsCancelledAndItsSenderToldSo() throws InterruptedException {
        AtomicLong received = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> handlerError = new CompletableFuture<>();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").options(OPTIONS)
                .transport(Transports.tcp())
                .handle(in -> in.receive().doOnNext(b -> {
                    received.addAndGet(b.remaining());
                    started.countDown();
                }).doOnError(handlerError::complete).then())
                .bindNow(LIMIT);
        Sinks.Many<ByteBuffer> data = Sinks.many().unicast().onBackpressureBuffer();
        Mono<Void> sent = sender(server).send(data.asFlux()).cache();
        sent.subscribe(v -> { }, e -> { });
        data.tryEmitNext(ByteBuffer.allocate(1000));
        assertThat(started.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        server.disposeGracefully(Duration.ofMillis(300)).block(LIMIT);

        assertThatThrownBy(() -> sent.block(LIMIT)).isInstanceOfSatisfying(RdmaFluxException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
            assertThat(e.getMessage()).contains("receiver shut down before the stream ended");
        });
        assertThat(Mono.fromFuture(handlerError).block(LIMIT)).isInstanceOf(RdmaFluxException.class);
        assertThat(server.isDisposed()).isTrue();
    }

    @Test
    void bindNowGivesABoundServerAndChecksItsTimeout() {
        ReceiverServer server = receiver(new AtomicLong(), new CountDownLatch(1)).bindNow(LIMIT);
        try {
            assertThat(server.address().getPort()).isPositive();
            // A second receiver on the taken port fails with the bind's own error, at once.
            assertThatThrownBy(() -> receiver(new AtomicLong(), new CountDownLatch(1))
                    .port(server.address().getPort()).bindNow(LIMIT))
                    .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECT));
        } finally {
            server.disposeNow();
        }
        assertThatThrownBy(() -> FluxReceiver.create().bindNow(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> FluxReceiver.create().handle(in -> Mono.empty()).bindNow(LIMIT))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no key set");
    }

    private static FluxReceiver receiver(AtomicLong received, CountDownLatch started) {
        return FluxReceiver.create().host("127.0.0.1").port(0).key("k").options(OPTIONS).transport(Transports.tcp())
                .handle(in -> in.receive().doOnNext(b -> {
                    received.addAndGet(b.remaining());
                    started.countDown();
                }).then());
    }

    private static FluxSender sender(ReceiverServer server) {
        return FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").options(OPTIONS)
                .transport(Transports.tcp());
    }
}
