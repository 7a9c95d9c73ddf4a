package io.rdmaflux.metrics;

import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.LiveStream;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.StreamObserver;
import io.rdmaflux.channel.StreamOutcome;
import io.rdmaflux.channel.Transports;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;

/**
 * Run by {@link MicrometerAbsentTest} in a JVM of its own whose class path lacks Micrometer:
 * one observed stream over TCP must work there. Prints "ok BYTES" and exits 0, or exits 1.
 */
public final class WithoutMicrometer {

    private WithoutMicrometer() {
    }

    public static void main(String[] args) {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            System.out.println("micrometer is on the class path");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            // As it should be.
        }
        AtomicLong received = new AtomicLong();
        StreamObserver observer = new StreamObserver() {
            @Override
            public void onEnd(LiveStream stream, StreamOutcome outcome) {
                if (outcome.side() == StreamOutcome.Side.RECEIVER) {
                    received.set(outcome.bytes());
                }
            }
        };
        Duration wait = Duration.ofSeconds(30);
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(Transports.tcp())
                .observe(observer).handle(in -> in.receive().then()).bind().block(wait);
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                    .transport(Transports.tcp()).observe(observer)
                    .send(Flux.just(ByteBuffer.allocate(1000), ByteBuffer.allocate(234))).block(wait);
        } finally {
            server.dispose();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (received.get() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        System.out.println("ok " + received.get());
        Transports.shutdown(Duration.ofSeconds(5));
        System.exit(0);
    }
}
