package io.rdmaflux.channel;

import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import reactor.core.publisher.Mono;

/**
 * 64 KiB streams in a row into one receiver over TCP on loopback, in this JVM, in alternating
 * blocks: a block on a new connection per stream, then a block on connections kept in a
 * {@link SenderPool}, and again. On a machine whose load swings (the shared build VM), blocks
 * next to each other see the same load, so their ratio holds where two separate runs (JMH's
 * {@code StreamReuseBenchmark}, one parameter after the other) do not. Prints each block's wall
 * time per stream and, at the end, the median of each and their ratio. Run by
 * scripts/bench-stream-reuse.
 */
public final class StreamReuseRun {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private StreamReuseRun() {
    }

    /** {@code StreamReuseRun BLOCK ROUNDS}: ROUNDS pairs of BLOCK streams each; the first pair warms up and is not counted. */
    public static void main(String[] args) {
        int block = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().then()).bind().block(WAIT);
        SenderPool pool = SenderPool.create();
        FluxSender fresh = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(TransportKind.TCP);
        FluxSender pooled = fresh.pool(pool);
        byte[] data = TestData.bytes(1, 64 * 1024);
        double[] freshMs = new double[rounds - 1];
        double[] pooledMs = new double[rounds - 1];
        for (int round = 0; round < rounds; round++) {
            double f = time(fresh, data, block);
            double p = time(pooled, data, block);
            System.out.printf(Locale.ROOT, "round %d: new connection %.3f ms, kept connection %.3f ms per stream%n",
                    round, f, p);
            if (round > 0) {
                freshMs[round - 1] = f;
                pooledMs[round - 1] = p;
            }
        }
        pool.dispose();
        server.disposeNow(WAIT);
        Transports.shutdown(Duration.ofSeconds(5));
        double f = median(freshMs);
        double p = median(pooledMs);
        System.out.printf(Locale.ROOT, "median: new connection %.3f ms, kept connection %.3f ms per stream (%.1fx)%n",
                f, p, f / p);
    }

    private static double time(FluxSender sender, byte[] data, int n) {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sender.send(Mono.fromSupplier(() -> ByteBuffer.wrap(data))).block(WAIT);
        }
        return (System.nanoTime() - start) / 1e6 / n;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
