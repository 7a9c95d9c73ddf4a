package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

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
        for (int i = 0; i < 100 && !eventLoopThreads().isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertThat(eventLoopThreads()).isEmpty();
        assertThat(transfer(12_345)).isEqualTo(12_345);
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
                .filter(n -> n.startsWith("reactor-tcp-"))
                .toList();
    }
}
