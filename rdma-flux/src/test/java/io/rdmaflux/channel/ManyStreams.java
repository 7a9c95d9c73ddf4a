package io.rdmaflux.channel;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * Sends N streams of 64 KiB, one after the other, into one receiver over TCP on loopback, in
 * this JVM, and prints how many succeeded, the time per stream and the most direct memory
 * held, sampled after a full collection every 100 streams. {@link ManyStreamsTest} runs it in a JVM with a small direct-memory
 * limit, scripts/bench-many-streams without; exit status 0 only when every stream arrived whole.
 */
public final class ManyStreams {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SIZE = 64 * 1024;

    private ManyStreams() {
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code ManyStreams N [--measure]}: with --measure, samples the memory held (pausing the clock). */
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        boolean measure = args.length > 1 && args[1].equals("--measure");
        System.out.println("direct memory limit " + DirectMemory.format(DirectMemory.limit()));
        AtomicLong received = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then())
                .bind().block(WAIT);
        FluxSender sender = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(TransportKind.TCP);
        int failed = 0;
        String first = null;
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        long peak = 0;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            byte[] data = TestData.bytes(i, SIZE);
            try {
                sender.send(Mono.fromSupplier(() -> ByteBuffer.wrap(data))).block(WAIT);
            } catch (RuntimeException e) {
                failed++;
                if (first == null) {
                    first = "stream " + i + ": " + e.getMessage();
                }
            }
            if (measure && i % 100 == 99) {
                // What is still held, not what the collector has yet to reclaim; off the clock.
                long paused = System.nanoTime();
                System.gc();
                sleep();
                peak = Math.max(peak, direct.getMemoryUsed());
                start += System.nanoTime() - paused;
            }
        }
        long elapsed = System.nanoTime() - start;
        server.disposeNow(WAIT);
        Transports.shutdown(Duration.ofSeconds(5));
        System.out.println((n - failed) + " of " + n + " streams succeeded, " + received.get() + " bytes received"
                + (first == null ? "" : "; first failure: " + first));
        System.out.printf(java.util.Locale.ROOT, "%.2f ms per stream%n", elapsed / 1e6 / n);
        if (measure) {
            System.out.println("direct memory held (after a full GC, every 100 streams): at most " + DirectMemory.format(peak));
        }
        System.exit(failed == 0 && received.get() == (long) n * SIZE ? 0 : 1);
    }
}
