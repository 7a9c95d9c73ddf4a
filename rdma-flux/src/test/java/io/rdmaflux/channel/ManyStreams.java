package io.rdmaflux.channel;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * Sends N streams of 64 KiB, one after the other, into one receiver over TCP on loopback, in
 * this JVM, and prints how many succeeded. {@link ManyStreamsTest} runs it in a JVM with a
 * small direct-memory limit; exit status 0 only when every stream arrived whole.
 */
public final class ManyStreams {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SIZE = 64 * 1024;

    private ManyStreams() {
    }

    /** {@code ManyStreams N}. */
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        System.out.println("direct memory limit " + DirectMemory.format(DirectMemory.limit()));
        AtomicLong received = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().doOnNext(b -> received.addAndGet(b.remaining())).then())
                .bind().block(WAIT);
        FluxSender sender = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(TransportKind.TCP);
        int failed = 0;
        String first = null;
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
        }
        server.disposeNow(WAIT);
        Transports.shutdown(Duration.ofSeconds(5));
        System.out.println((n - failed) + " of " + n + " streams succeeded, " + received.get() + " bytes received"
                + (first == null ? "" : "; first failure: " + first));
        System.exit(failed == 0 && received.get() == (long) n * SIZE ? 0 : 1);
    }
}
