package io.rdmaflux.transport.rdma;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportServer;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;

/**
 * Channel throughput in one JVM without files or hashing: the same direct buffer sent over and
 * over, released at once on arrival. For finding where time goes, not a correctness check.
 * {@code RdmaBench [MB] [frameBytes] [slots] [rdma|tcp|raw] [rounds]} ({@code raw}: the RDMA
 * transport without the engine); inside the guest the sender
 * binds to RDMAFLUX_RDMA_ADDR_B and the receiver listens on RDMAFLUX_RDMA_ADDR_A.
 */
public final class RdmaBench {

    public static void main(String[] args) {
        int mb = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int frame = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        int slots = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        boolean tcp = args.length > 3 && args[3].equals("tcp");
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 2;
        String a = System.getenv().getOrDefault("RDMAFLUX_RDMA_ADDR_A", "127.0.0.1");
        String b = System.getenv().getOrDefault("RDMAFLUX_RDMA_ADDR_B", "127.0.0.1");
        System.setProperty("rdmaflux.rdma.source", b);
        if (args.length > 3 && args[3].equals("raw")) {
            for (int r = 1; r <= rounds; r++) {
                raw(r, a, mb, frame, slots);
            }
            System.exit(0);
        }
        Transport t = tcp ? new TcpTransport() : new RdmaTransport();
        ChannelOptions o = ChannelOptions.defaults().withFrameSize(frame).withReceiveSlots(slots).withSendSlots(slots);
        ByteBuffer block = ByteBuffer.allocateDirect(frame);
        long frames = (long) mb * 1_000_000 / frame;
        for (int r = 1; r <= rounds; r++) {
            AtomicLong got = new AtomicLong();
            ReceiverServer server = FluxReceiver.create().host(a).port(0).key("k").transport(t).options(o)
                    .handle(in -> in.receiveChunks().doOnNext(c -> {
                        got.addAndGet(c.remaining());
                        c.release();
                    }).then())
                    .bind().block(Duration.ofSeconds(20));
            long t0 = System.nanoTime();
            try {
                FluxSender.create().host(a).port(server.address().getPort()).key("k").transport(t).options(o)
                        .send(Flux.range(0, (int) frames).map(i -> block.duplicate().clear()))
                        .block(Duration.ofSeconds(600));
            } finally {
                server.dispose();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("round %d (%s): %d bytes in %.2f s = %.1f MB/s (frame %d, slots %d)%n",
                    r, tcp ? "tcp" : "rdma", got.get(), s, got.get() / s / 1e6, frame, slots);
        }
        System.exit(0);
    }

    /**
     * The transport alone, without the engine: frames sent as fast as credits (a quarter ring
     * at a time, as the engine grants them) and send slots allow, released at once on arrival.
     * It keeps the engine's shape where the transport relies on it: the sender sends two small
     * control frames first (HELLO and AUTH take the receiver's two handshake receives), and the
     * receiver posts its ring ({@code acceptData}) before it grants the first credits.
     */
    private static void raw(int round, String a, int mb, int frame, int slots) {
        TransportOptions o = new TransportOptions(frame, slots, slots, Duration.ofSeconds(20));
        RdmaTransport t = new RdmaTransport();
        long frames = (long) mb * 1_000_000 / frame;
        AtomicLong got = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        int batch = Math.max(1, slots / 4);
        TransportServer server = t.listen(new InetSocketAddress(a, 0), o, conn -> conn.start(new FrameHandler() {
            int pending;

            int handshake;

            @Override
            public void onControlFrame(FrameType type, ByteBuffer payload) {
                if (++handshake == 2) {
                    conn.acceptData();
                    conn.sendControl(FrameType.CREDIT, ByteBuffer.allocate(4).putInt(0, slots));
                }
            }

            @Override
            public void onDataFrame(Chunk c) {
                got.addAndGet(c.remaining());
                c.release();
                if (++pending == batch) {
                    conn.sendControl(FrameType.CREDIT, ByteBuffer.allocate(4).putInt(0, pending));
                    pending = 0;
                }
                if (got.get() == frames * frame) {
                    done.countDown();
                }
            }

            @Override
            public void onSendSlotFree() {
            }

            @Override
            public void onClosed(Throwable cause) {
                done.countDown();
            }
        })).block(Duration.ofSeconds(20));
        FrameConnection c = t.connect(server.address(), o).block(Duration.ofSeconds(20));
        Semaphore credits = new Semaphore(0);
        Semaphore sendSlots = new Semaphore(slots);
        c.start(new FrameHandler() {
            @Override
            public void onControlFrame(FrameType type, ByteBuffer payload) {
                if (type == FrameType.CREDIT) {
                    credits.release(payload.getInt(payload.position()));
                }
            }

            @Override
            public void onDataFrame(Chunk chunk) {
                chunk.release();
            }

            @Override
            public void onSendSlotFree() {
                sendSlots.release();
            }

            @Override
            public void onClosed(Throwable cause) {
                if (cause != null) {
                    System.out.println("round " + round + " raw: sender's connection failed: " + cause);
                }
            }
        });
        c.sendControl(FrameType.HELLO, ByteBuffer.allocate(0));
        c.sendControl(FrameType.AUTH, ByteBuffer.allocate(0));
        ByteBuffer block = ByteBuffer.allocateDirect(frame);
        long t0 = System.nanoTime();
        try {
            for (long i = 0; i < frames; i++) {
                // Bounded: a broken connection must end the bench, not hang it.
                if (!credits.tryAcquire(60, TimeUnit.SECONDS) || !sendSlots.tryAcquire(60, TimeUnit.SECONDS)) {
                    System.out.println("round " + round + " raw: no credit or send slot for 60 s after " + i + " frames");
                    System.exit(1);
                }
                c.sendData(Chunk.wrap(block.duplicate().clear()));
            }
            done.await(300, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        c.close();
        server.dispose();
        System.out.printf("round %d (raw transport): %d bytes in %.2f s = %.1f MB/s (frame %d, slots %d)%n",
                round, got.get(), s, got.get() / s / 1e6, frame, slots);
    }

    private RdmaBench() {
    }
}
