package io.rdmaflux.channel;

import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import reactor.core.publisher.Mono;

/**
 * One 64 KiB stream after another into one receiver over TCP on loopback, sender and receiver in
 * this JVM: each on a new connection (a connect, the HELLO/AUTH handshake, a close), or on a
 * connection kept in a {@link SenderPool} (a NEXT round trip). The time of one operation is the
 * whole stream, from {@code send} to the receiver's END_ACK.
 *
 * <pre>
 * mvn -o -B -q -Pbenchmarks -pl rdma-flux -am package -DskipTests
 * java -jar rdma-flux/target/rdma-flux-benchmarks.jar StreamReuseBenchmark -f 1 -wi 3 -i 5
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StreamReuseBenchmark {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** "fresh": a connection per stream; "pooled": connections kept between streams. */
    @Param({"fresh", "pooled"})
    public String connections;

    private ReceiverServer server;
    private SenderPool pool;
    private FluxSender sender;
    private final byte[] data = new byte[64 * 1024];

    @Setup(Level.Trial)
    public void setUp() {
        new java.util.Random(1).nextBytes(data);
        server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().then())
                .bind().block(WAIT);
        FluxSender s = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(TransportKind.TCP);
        if (connections.equals("pooled")) {
            pool = SenderPool.create();
            s = s.pool(pool);
        }
        sender = s;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.dispose();
        }
        server.disposeNow(WAIT);
        Transports.shutdown(Duration.ofSeconds(5));
    }

    @Benchmark
    public void stream64KiB() {
        sender.send(Mono.fromSupplier(() -> ByteBuffer.wrap(data))).block(WAIT);
    }
}
