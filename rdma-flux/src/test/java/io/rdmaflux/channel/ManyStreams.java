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

    /** The process's CPU time in ns (every thread), or -1 where the JVM does not say. */
    private static long cpu(java.lang.management.OperatingSystemMXBean os) {
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code ManyStreams N [--measure] [--pool]}: with --measure, samples the memory held (pausing
     * the clock); with --pool, the sender keeps its connection between streams ({@link SenderPool}).
     */
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        java.util.List<String> flags = java.util.List.of(args).subList(1, args.length);
        boolean measure = flags.contains("--measure");
        SenderPool pool = flags.contains("--pool") ? SenderPool.create() : null;
        System.out.println("direct memory limit " + DirectMemory.format(DirectMemory.limit()));
        AtomicLong received = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then())
                .bind().block(WAIT);
        FluxSender plain = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(TransportKind.TCP);
        FluxSender sender = pool == null ? plain : plain.pool(pool);
        int failed = 0;
        String first = null;
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        long peak = 0;
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = cpu(os);
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
                long cpuPaused = cpu(os);
                System.gc();
                sleep();
                peak = Math.max(peak, direct.getMemoryUsed());
                start += System.nanoTime() - paused;
                cpuStart += cpu(os) - cpuPaused;
            }
        }
        long elapsed = System.nanoTime() - start;
        // CPU time of the whole process (both ends, every thread): what a stream costs when the
        // cores are shared, where the wall clock mostly measures waiting for a core.
        long cpu = cpuStart < 0 ? -1 : cpu(os) - cpuStart;
        if (pool != null) {
            pool.dispose();
        }
        server.disposeNow(WAIT);
        Transports.shutdown(Duration.ofSeconds(5));
        System.out.println((n - failed) + " of " + n + " streams succeeded, " + received.get() + " bytes received"
                + (first == null ? "" : "; first failure: " + first));
        System.out.printf(java.util.Locale.ROOT, "%.2f ms per stream%n", elapsed / 1e6 / n);
        if (cpu >= 0) {
            System.out.printf(java.util.Locale.ROOT, "%.2f ms of CPU per stream (both ends)%n", cpu / 1e6 / n);
        }
        if (measure) {
            System.out.println("direct memory held (after a full GC, every 100 streams): at most " + DirectMemory.format(peak));
        }
        System.exit(failed == 0 && received.get() == (long) n * SIZE ? 0 : 1);
    }
}
