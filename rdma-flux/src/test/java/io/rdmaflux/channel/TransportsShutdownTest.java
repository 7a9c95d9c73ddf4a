package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * {@link Transports#shutdown(Duration)}: the tools call it before exiting, because the JVM's
 * exit waits for threads blocked in native calls, and an idle event loop is one.
 */
class TransportsShutdownTest {

    @Test
    void leavesNoEventLoopThreadAndTheTransportStillWorksAfterwards() throws InterruptedException {
        assertThat(transfer(100_000)).isEqualTo(100_000);
        assertThat(eventLoopThreads()).isNotEmpty();

        Transports.shutdown(Duration.ofSeconds(5));

        // Threads finish shortly after the loops report termination.
        await("event loop threads ended").atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(eventLoopThreads()).isEmpty());
        assertThat(transfer(12_345)).isEqualTo(12_345);
    }

    /**
     * A service may run reactor-netty for other things (an HTTP server, a client) on its global
     * resources: shutting the channel's transports down must leave those running.
     */
    @Test
    void leavesOtherReactorNettyUsersOfTheJvmRunning() {
        DisposableServer echo = TcpServer.create().host("127.0.0.1").port(0)
                .handle((in, out) -> out.send(in.receive().retain()))
                .bindNow(Duration.ofSeconds(10));
        try {
            assertThat(echo(echo, "before")).isEqualTo("before");
            assertThat(transfer(10_000)).isEqualTo(10_000);

            Transports.shutdown(Duration.ofSeconds(5));

            assertThat(echo.isDisposed()).isFalse();
            assertThat(echo(echo, "after")).isEqualTo("after");
        } finally {
            echo.disposeNow(Duration.ofSeconds(10));
        }
    }

    /** One round trip through the plain reactor-netty echo server, on a plain client. */
    private static String echo(DisposableServer server, String text) {
        Connection c = TcpClient.create().host("127.0.0.1").port(server.port()).connectNow(Duration.ofSeconds(10));
        try {
            return c.outbound().sendString(Mono.just(text)).then()
                    .thenMany(c.inbound().receive().asString())
                    .scan("", String::concat)
                    .filter(echoed -> echoed.length() >= text.length())
                    .next()
                    .block(Duration.ofSeconds(10));
        } finally {
            c.disposeNow(Duration.ofSeconds(10));
        }
    }

    private static long transfer(int size) {
        AtomicLong received = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(Transports.tcp())
                .handle(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then())
                .bind().block(Duration.ofSeconds(10));
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(Transports.tcp())
                    .send(Flux.just(ByteBuffer.allocate(size)))
                    .block(Duration.ofSeconds(30));
        } finally {
            server.dispose();
        }
        return received.get();
    }

    private static List<String> eventLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("rdma-flux-tcp-"))
                .toList();
    }
}
