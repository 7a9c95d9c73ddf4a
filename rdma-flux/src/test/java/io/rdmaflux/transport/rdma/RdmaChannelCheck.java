package io.rdmaflux.transport.rdma;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.SingleStreamServer;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The channel over real RDMA, in one JVM inside the Soft-RoCE guest: whole streams compared by
 * SHA-256 in both directions (rxe1 to rxe0 and rxe0 to rxe1), empty and 1-byte streams, a slow
 * consumer that makes the sender wait on credits, a wrong key, a second sender and a wrong key
 * while a stream runs (refused, the stream intact), connections that never authenticate (they
 * hold two small receives, not the ring, and are cut off), the transport's shutdown (which must end
 * every thread it started), and at the end a check that no
 * connection, listener or registered byte is left. Prints one line per check; exits 0 when all
 * pass, 1 otherwise. The script runs it with {@code -Drdmaflux.rdma.rnrRetry=0}: a single
 * receiver-not-ready would fail a stream, so passing proves the credits keep receives posted.
 *
 * <p>Run: {@code scripts/softroce/run rdma-flux/src/test/softroce/channel-check [MB]}.
 */
public final class RdmaChannelCheck {

    private static final List<String> failures = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int mb = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String a = env("RDMAFLUX_RDMA_ADDR_A", "10.77.0.1");
        String b = env("RDMAFLUX_RDMA_ADDR_B", "10.77.0.2");
        String reason = RdmaNative.unavailableReason();
        if (reason != null) {
            System.err.println("channel check: FAIL: RDMA unavailable: " + reason);
            System.exit(1);
        }
        Transport rdma = new RdmaTransport();
        ChannelOptions big = ChannelOptions.defaults().withFrameSize(256 * 1024).withReceiveSlots(16).withSendSlots(16);
        ChannelOptions small = ChannelOptions.defaults().withFrameSize(16 * 1024).withReceiveSlots(4).withSendSlots(2);

        check("stream of " + mb + " MB, " + b + " (rxe1) -> " + a + " (rxe0)",
                () -> stream(rdma, big, b, a, mb * 1_000_003L, a));
        check("stream of " + mb + " MB, " + a + " (rxe0) -> " + b + " (rxe1)",
                () -> stream(rdma, big, a, b, mb * 1_000_003L, b));
        check("empty stream", () -> stream(rdma, small, b, a, 0, a));
        check("1-byte stream", () -> stream(rdma, small, b, a, 1, a));
        check("odd sizes across frame boundaries", () -> stream(rdma, small, b, a, 3 * 16 * 1024 + 1, a));
        // rdrecv and the rdcp/rdpipe agents listen on the wildcard address by default.
        check("a listener on 0.0.0.0 serves a stream", () -> stream(rdma, small, b, a, 1_000_003, "0.0.0.0"));
        check("slow consumer (sender waits on credits)", () -> slowConsumer(rdma, small, b, a, 2_000_000, 2));
        check("wrong key refused before data", () -> wrongKey(rdma, small, b, a));
        check("a second sender and a wrong key during a stream: refused, the stream intact",
                () -> intruders(rdma, small, b, a));
        check("strangers before authentication: 72 KiB and no ring, cut off, the next stream intact",
                () -> strangers(rdma, big, b, a));
        check("shutdown closes what is open and ends the transport's threads",
                () -> shutdownEndsThreads(new RdmaTransport(), small, b, a));

        // Everything torn down: connections, listeners, registered memory.
        long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < until && (RdmaTransport.liveConnections() > 0 || RdmaTransport.liveListeners() > 0
                || RdmaTransport.registeredBytes() > 0)) {
            Thread.sleep(100);
        }
        check("nothing left registered", () -> {
            if (RdmaTransport.liveConnections() != 0 || RdmaTransport.liveListeners() != 0
                    || RdmaTransport.registeredBytes() != 0) {
                return "connections " + RdmaTransport.liveConnections() + ", listeners " + RdmaTransport.liveListeners()
                        + ", registered bytes " + RdmaTransport.registeredBytes();
            }
            return verbsResourcesOfThisProcess();
        });
        if (failures.isEmpty()) {
            System.out.println("channel check: PASS");
            System.exit(0);
        }
        System.out.println("channel check: FAIL: " + failures);
        System.exit(1);
    }

    /** Null when the check passed, otherwise what went wrong. */
    private static void check(String name, Supplier<String> body) {
        long t0 = System.nanoTime();
        String problem;
        try {
            problem = body.get();
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (problem == null) {
            System.out.println("ok: " + name + " (" + ms + " ms)");
        } else {
            System.out.println("FAIL: " + name + ": " + problem);
            failures.add(name);
        }
    }

    /** A stream from {@code from} to {@code to}, the receiver listening on {@code listenHost}. */
    private static String stream(Transport rdma, ChannelOptions options, String from, String to, long size,
                                 String listenHost) {
        MessageDigest sent = sha();
        MessageDigest got = sha();
        AtomicLong receivedBytes = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host(listenHost).port(0).key("secret").transport(rdma).options(options)
                .handle(in -> in.receiveChunks().publishOn(Schedulers.boundedElastic(), 2).doOnNext(chunk -> {
                    ByteBuffer buf = chunk.buffer();
                    receivedBytes.addAndGet(buf.remaining());
                    got.update(buf.duplicate());
                    chunk.release();
                }).then())
                .bind().block(Duration.ofSeconds(20));
        long t0 = System.nanoTime();
        try {
            System.setProperty("rdmaflux.rdma.source", from);
            Flux<ByteBuffer> data = generate(size, 100_003, sent);
            FluxSender.create().host(to).port(server.address().getPort()).key("secret").transport(rdma).options(options)
                    .send(data).block(Duration.ofSeconds(300));
        } finally {
            server.dispose();
        }
        long ms = Math.max(1, (System.nanoTime() - t0) / 1_000_000);
        String s = hex(sent);
        String r = hex(got);
        if (receivedBytes.get() != size || !s.equals(r)) {
            return "sent " + size + " bytes sha256 " + s + ", received " + receivedBytes.get() + " sha256 " + r;
        }
        if (size >= 1_000_000) {
            System.out.printf("   %d bytes in %d ms: %.1f MB/s, sha256 %s%n", size, ms, size / 1000.0 / ms, s.substring(0, 16));
        }
        return null;
    }

    private static String slowConsumer(Transport rdma, ChannelOptions options, String from, String to, long size,
                                       int millis) {
        MessageDigest sent = sha();
        MessageDigest got = sha();
        AtomicLong receivedBytes = new AtomicLong();
        AtomicLong buffers = new AtomicLong();
        ReceiverServer server = FluxReceiver.create().host(to).port(0).key("secret").transport(rdma).options(options)
                .handle(in -> in.receiveChunks().publishOn(Schedulers.boundedElastic(), 1).doOnNext(chunk -> {
                    ByteBuffer buf = chunk.buffer();
                    receivedBytes.addAndGet(buf.remaining());
                    got.update(buf.duplicate());
                    buffers.incrementAndGet();
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        chunk.release();
                    }
                }).then())
                .bind().block(Duration.ofSeconds(20));
        try {
            System.setProperty("rdmaflux.rdma.source", from);
            FluxSender.create().host(to).port(server.address().getPort()).key("secret").transport(rdma).options(options)
                    .send(generate(size, 4093, sent)).block(Duration.ofSeconds(300));
        } finally {
            server.dispose();
        }
        String s = hex(sent);
        String r = hex(got);
        if (receivedBytes.get() != size || !s.equals(r)) {
            return "sent " + size + " bytes sha256 " + s + ", received " + receivedBytes.get() + " sha256 " + r;
        }
        System.out.println("   " + buffers.get() + " buffers consumed at " + millis + " ms each, ring of "
                + options.receiveSlots() + " slots");
        return null;
    }

    private static String wrongKey(Transport rdma, ChannelOptions options, String from, String to) {
        ReceiverServer server = FluxReceiver.create().host(to).port(0).key("right").transport(rdma).options(options)
                .handle(in -> in.receive().then())
                .bind().block(Duration.ofSeconds(20));
        try {
            System.setProperty("rdmaflux.rdma.source", from);
            FluxSender.create().host(to).port(server.address().getPort()).key("wrong").transport(rdma).options(options)
                    .send(Flux.just(ByteBuffer.wrap(new byte[1000]))).block(Duration.ofSeconds(30));
            return "the sender succeeded with a wrong key";
        } catch (RdmaFluxException e) {
            if (e.code() != ErrorCode.AUTHENTICATION) {
                return "expected AUTHENTICATION, got " + e.code() + ": " + e.getMessage();
            }
            System.out.println("   sender: " + e.getMessage());
            return null;
        } finally {
            server.dispose();
        }
    }

    /**
     * A one-stream receiver while its stream runs: another sender with the key is refused as
     * busy, one with a wrong key is refused too, and the stream arrives whole.
     */
    private static String intruders(Transport rdma, ChannelOptions options, String from, String to) {
        AtomicLong receivedBytes = new AtomicLong();
        java.util.concurrent.CompletableFuture<Void> started = new java.util.concurrent.CompletableFuture<>();
        SingleStreamServer server = countingServer(rdma, options, to, receivedBytes, () -> started.complete(null));
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        System.setProperty("rdmaflux.rdma.source", from);
        Sinks.Many<ByteBuffer> data = Sinks.many().unicast().onBackpressureBuffer();
        data.tryEmitNext(ByteBuffer.wrap(new byte[500_000]));
        FluxSender sender = FluxSender.create().host(to).port(server.address().getPort()).transport(rdma).options(options);
        Mono<Void> first = sender.key("secret").send(data.asFlux()).cache();
        first.subscribe(v -> { }, e -> { });
        try {
            started.get(60, java.util.concurrent.TimeUnit.SECONDS);
            String second = refusal(sender.key("secret"), ErrorCode.BUSY);
            String wrong = refusal(sender.key("wrong"), ErrorCode.BUSY, ErrorCode.AUTHENTICATION);
            data.tryEmitNext(ByteBuffer.wrap(new byte[500_000]));
            data.tryEmitComplete();
            first.block(Duration.ofSeconds(120));
            outcome.block(Duration.ofSeconds(30));
            if (second != null || wrong != null) {
                return second != null ? second : wrong;
            }
            return receivedBytes.get() == 1_000_000 ? null : "received " + receivedBytes.get() + " of 1000000 bytes";
        } catch (Exception e) {
            return e.toString();
        } finally {
            server.dispose();
        }
    }

    /**
     * Connections that never authenticate, at a one-stream receiver: an idle one holds only what
     * {@link RdmaTransport#registeredBytesUnauthenticated} says (no ring) until the handshake
     * timeout cuts it off; one that sends a control frame over 4 KiB and one that sends DATA
     * before authenticating are cut off at once; then a real sender's stream arrives whole.
     */
    private static String strangers(Transport rdma, ChannelOptions options, String from, String to) {
        // The receiver's handshake timer starts at its accept; in a loaded emulated guest the
        // stranger's own connect() has returned after 4 s, when the receiver had already cut it
        // off and the registered bytes could no longer be seen. Well above that, below cutOff's wait.
        ChannelOptions o = options.withHandshakeTimeout(Duration.ofSeconds(12));
        TransportOptions t = o.transportOptions();
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (RdmaTransport.liveConnections() > 0 && System.nanoTime() < until) {
            sleep(50);
        }
        if (RdmaTransport.registeredBytes() != 0) {
            return "earlier checks left " + RdmaTransport.registeredBytes() + " bytes registered";
        }
        AtomicLong receivedBytes = new AtomicLong();
        SingleStreamServer server = countingServer(rdma, o, to, receivedBytes, () -> { });
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        System.setProperty("rdmaflux.rdma.source", from);
        try {
            Stranger idle = Stranger.connect(rdma, server.address(), t);
            long expected = RdmaTransport.registeredBytesSending(t) + RdmaTransport.registeredBytesUnauthenticated(t);
            until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (RdmaTransport.registeredBytes() != expected && System.nanoTime() < until) {
                sleep(20);
            }
            if (RdmaTransport.registeredBytes() != expected) {
                return "an idle stranger and its receiver hold " + RdmaTransport.registeredBytes()
                        + " registered bytes, expected " + expected + " (no ring before authentication)";
            }
            System.out.println("   an unauthenticated connection holds "
                    + RdmaTransport.registeredBytesUnauthenticated(t) + " registered bytes at the receiver (its ring: "
                    + (RdmaTransport.registeredBytesReceiving(t) - RdmaTransport.registeredBytesUnauthenticated(t)) + ")");
            if (!idle.cutOff()) {
                return "an idle stranger was not cut off by the handshake timeout";
            }
            Stranger big = Stranger.connect(rdma, server.address(), t);
            big.connection.sendControl(FrameType.HELLO, ByteBuffer.allocate(8192));
            if (!big.cutOff()) {
                return "a stranger's 8 KiB HELLO did not end its connection";
            }
            Stranger data = Stranger.connect(rdma, server.address(), t);
            data.connection.sendData(Chunk.wrap(ByteBuffer.allocateDirect(1000)));
            if (!data.cutOff()) {
                return "a stranger's DATA frame before authentication did not end its connection";
            }
            FluxSender.create().host(to).port(server.address().getPort()).key("secret").transport(rdma).options(o)
                    .send(Flux.just(ByteBuffer.wrap(new byte[1_000_000]))).block(Duration.ofSeconds(120));
            outcome.block(Duration.ofSeconds(30));
            return receivedBytes.get() == 1_000_000 ? null : "received " + receivedBytes.get() + " of 1000000 bytes";
        } catch (RuntimeException e) {
            return e.toString();
        } finally {
            server.dispose();
        }
    }

    /** A raw connection that never authenticates; {@link #cutOff()} waits for the receiver to end it. */
    private record Stranger(FrameConnection connection, CountDownLatch closed) {

        static Stranger connect(Transport rdma, InetSocketAddress address, TransportOptions t) {
            CountDownLatch closed = new CountDownLatch(1);
            FrameConnection c = rdma.connect(address, t).block(Duration.ofSeconds(20));
            c.start(ignoring(closed::countDown));
            return new Stranger(c, closed);
        }

        boolean cutOff() {
            try {
                return closed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } finally {
                connection.close();
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A one-stream receiver on {@code to} (key "secret") that counts the bytes it is given. */
    private static SingleStreamServer countingServer(Transport rdma, ChannelOptions options, String to,
                                                     AtomicLong receivedBytes, Runnable onChunk) {
        return FluxReceiver.create().host(to).port(0).key("secret").transport(rdma).options(options)
                .handle(in -> in.receiveChunks().doOnNext(chunk -> {
                    receivedBytes.addAndGet(chunk.remaining());
                    onChunk.run();
                    chunk.release();
                }).then())
                .bindOne().block(Duration.ofSeconds(20));
    }

    /** Null when sending one buffer fails with one of {@code expected}; otherwise what happened. */
    private static String refusal(FluxSender sender, ErrorCode... expected) {
        try {
            sender.send(Flux.just(ByteBuffer.wrap(new byte[1000]))).block(Duration.ofSeconds(60));
            return "an intruding sender succeeded";
        } catch (RdmaFluxException e) {
            if (!java.util.List.of(expected).contains(e.code())) {
                return "expected " + java.util.List.of(expected) + ", got " + e.code() + ": " + e.getMessage();
            }
            System.out.println("   refused: " + e.getMessage());
            return null;
        }
    }

    /**
     * An idle connection (both ends started, no stream) and its listener, then
     * {@link RdmaTransport#shutdown}: everything is released and every I/O, poster and listener
     * thread has ended, which is what lets a tool's JVM exit without waiting for them.
     */
    private static String shutdownEndsThreads(RdmaTransport rdma, ChannelOptions options, String from, String to) {
        TransportOptions o = options.transportOptions();
        CountDownLatch acceptedLatch = new CountDownLatch(1);
        TransportServer server = rdma.listen(new InetSocketAddress(to, 0), o, c -> {
            c.start(IGNORE);
            acceptedLatch.countDown();
        }).block(Duration.ofSeconds(20));
        System.setProperty("rdmaflux.rdma.source", from);
        FrameConnection client = rdma.connect(server.address(), o).block(Duration.ofSeconds(20));
        client.start(IGNORE);
        try {
            if (!acceptedLatch.await(20, TimeUnit.SECONDS)) {
                return "the listener did not accept within 20 s";
            }
            List<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().matches("rdma-flux-(io|post|listen)-.*")).toList();
            if (threads.size() < 5) {
                return "expected I/O and poster threads for both ends and a listener thread, found " + threads;
            }
            rdma.shutdown(Duration.ofSeconds(20));
            if (RdmaTransport.liveConnections() != 0 || RdmaTransport.liveListeners() != 0) {
                return "after shutdown: connections " + RdmaTransport.liveConnections() + ", listeners "
                        + RdmaTransport.liveListeners();
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            List<String> alive = threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
            if (!alive.isEmpty()) {
                return "threads still alive after shutdown: " + alive;
            }
            client.onClose().block(Duration.ofSeconds(10));
            return server.isDisposed() ? null : "the listener was not disposed";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static final FrameHandler IGNORE = ignoring(() -> { });

    /** A handler that takes every frame and does nothing with it but run {@code onClosed} at the end. */
    private static FrameHandler ignoring(Runnable onClosed) {
        return FrameHandler.controlOnly((type, payload) -> { }, cause -> onClosed.run());
    }

    /** Pseudo-random data in pieces of up to maxPiece bytes, hashed as it is generated. */
    private static Flux<ByteBuffer> generate(long size, int maxPiece, MessageDigest digest) {
        return Flux.generate(() -> new long[] {0, 0x9E3779B97F4A7C15L}, (st, sink) -> {
            long left = size - st[0];
            if (left <= 0) {
                sink.complete();
                return st;
            }
            int n = (int) Math.min(left, 1 + Math.floorMod(st[1], maxPiece));
            byte[] bytes = new byte[n];
            long x = st[1];
            for (int i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                bytes[i] = (byte) x;
            }
            st[1] = x;
            st[0] += n;
            digest.update(bytes);
            sink.next(ByteBuffer.wrap(bytes));
            return st;
        });
    }

    /** Queue pairs and memory regions the kernel still lists for this process, via rdma(8). */
    private static String verbsResourcesOfThisProcess() {
        long pid = ProcessHandle.current().pid();
        StringBuilder left = new StringBuilder();
        for (String what : new String[] {"qp", "mr", "cq", "pd"}) {
            try {
                Process p = new ProcessBuilder("rdma", "res", "show", what).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                p.waitFor();
                for (String line : out.split("\n")) {
                    if (line.contains("pid " + pid + " ")) {
                        left.append(what).append(": ").append(line.trim()).append("; ");
                    }
                }
            } catch (Exception e) {
                return "cannot run rdma res show " + what + ": " + e;
            }
        }
        return left.length() == 0 ? null : "still allocated: " + left;
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(MessageDigest d) {
        return HexFormat.of().formatHex(d.digest());
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    private RdmaChannelCheck() {
    }
}
