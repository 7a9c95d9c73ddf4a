package io.rdmaflux.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.SingleStreamServer;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What every transport promises the protocol engine ({@link Transport}, {@link FrameConnection},
 * {@link FrameHandler}), tested once and run over each: the in-memory transport, TCP and, inside
 * the Soft-RoCE guest, RDMA. A subclass says how to make the transport and where to listen.
 *
 * <p>The tests drive connections the way the engine does, without it: the receiving side calls
 * {@code acceptData()} and then announces its ring (a HELLO carrying its receive slots), the
 * sender sends data only while it holds a credit and a free send slot, and a CREDIT frame gives
 * a credit back. Before {@code acceptData()} the sender sends exactly its HELLO and AUTH, as the RDMA
 * transport requires (see {@link FrameConnection#acceptData()}).
 */
public abstract class TransportContract {

    /** A bound on every wait; generous, because the RDMA half runs under emulation. */
    protected static final Duration WAIT = Duration.ofSeconds(60);
    /** Small frames and rings, so that rings fill and frames are cut at odd sizes. */
    protected static final TransportOptions OPTIONS = new TransportOptions(16 * 1024, 4, 2, Duration.ofSeconds(20));

    private final List<FrameConnection> connections = new CopyOnWriteArrayList<>();
    private final List<FrameConnection> connected = new CopyOnWriteArrayList<>();
    private final List<TransportServer> servers = new CopyOnWriteArrayList<>();
    private Transport transport;
    private BufferPool pool;

    /** A new instance of the transport under test. */
    protected abstract Transport newTransport();

    /** Where a test listens: port 0 on an address of this host the transport can use. */
    protected abstract InetSocketAddress listenAddress();

    /** The host a channel's receiver binds and its sender connects to. */
    protected abstract String host();

    /**
     * Receive slots leased now by the connections of the transport under test, or -1 where the
     * transport does not count them ({@link #connections()} are those connections).
     */
    protected abstract int receiveSlotsInUse();

    /** Once every connection and listener is closed: what the transport must have given back. */
    protected void assertAllGivenBack() {
        await("receive slots given back").atMost(WAIT)
                .untilAsserted(() -> assertThat(receiveSlotsInUse()).as("receive slots leased").isIn(0, -1));
    }

    /** Every connection the transport under test made or accepted, in order. */
    protected final List<FrameConnection> connections() {
        return connections;
    }

    @BeforeEach
    void setUp() {
        transport = new Recording(newTransport());
        pool = new BufferPool("contract", OPTIONS.frameSize(), 16);
    }

    @AfterEach
    void nothingLeft() {
        connections.forEach(FrameConnection::close);
        servers.forEach(TransportServer::dispose);
        for (FrameConnection c : connections) {
            c.onClose().block(WAIT);
        }
        assertAllGivenBack();
        await("chunks given to sendData released").atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.outstanding()).as("sent chunks not released").isZero());
    }

    @Test
    void connectsAcceptsAndCarriesControlFramesBothWays() throws Exception {
        Pair p = connect();
        assertThat(p.client.name()).isEqualTo(transport.name());
        assertThat(p.server.name()).isEqualTo(transport.name());
        assertThat(p.client.describe()).isNotBlank();
        assertThat(p.client.receiveSlots()).isEqualTo(OPTIONS.receiveSlots());
        assertThat(p.client.sendSlots()).isEqualTo(OPTIONS.sendSlots());
        assertThat(p.client.maxFramePayload()).isPositive().isLessThanOrEqualTo(OPTIONS.frameSize());
        byte[] hello = random(new Random(1), 1000);
        p.client.sendControl(FrameType.HELLO, ByteBuffer.wrap(hello));
        p.serverEvents.expectControl(FrameType.HELLO, hello);
        byte[] answer = random(new Random(2), 3000);
        p.server.sendControl(FrameType.HELLO, ByteBuffer.wrap(answer));
        p.clientEvents.expectControl(FrameType.HELLO, answer);
        p.client.sendControl(FrameType.PING, ByteBuffer.allocate(0));
        p.serverEvents.expectControl(FrameType.PING, new byte[0]);
    }

    @Test
    void connectingWhereNothingListensFailsWithConnect() {
        TransportServer server = transport.listen(listenAddress(), OPTIONS, c -> c.start(new Events())).block(WAIT);
        InetSocketAddress gone = server.address();
        server.dispose();
        server.onDispose().block(WAIT);
        assertThatThrownBy(() -> transport.connect(gone, OPTIONS).block(WAIT))
                .isInstanceOf(RdmaFluxException.class)
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.CONNECT));
    }

    /** Frames of random sizes, each arrives whole and alone, in order, with its bytes. */
    @Test
    void dataFramesArriveExactlyAsSent() throws Exception {
        for (long seed : new long[] {7, 22, 7691}) {
            Pair p = connect();
            Received received = new Received(p.server, true);
            p.serverEvents.onData = received;
            int credits = p.handshake();
            Random random = new Random(seed);
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                // Mostly odd sizes, and the edges: 1 byte and a full frame.
                int size = switch (i % 10) {
                    case 0 -> 1;
                    case 1 -> p.client.maxFramePayload();
                    default -> 1 + random.nextInt(p.client.maxFramePayload());
                };
                sent.add(random(random, size));
            }
            p.sendData(sent, credits);
            await("all frames received, seed " + seed).atMost(WAIT).until(() -> received.frames.size() == sent.size());
            assertSame(received.frames, sent, "seed " + seed);
            assertThat(received.mostHeld.get()).as("seed %d: leases held at once", seed).isLessThanOrEqualTo(1);
            p.close();
        }
    }

    /** A ring of N receive slots takes N data frames that nobody has released: the credits the peer holds are real. */
    @Test
    void aFullRingHoldsAsManyFramesAsItHasSlots() throws Exception {
        Pair p = connect();
        Received received = new Received(p.server, false);
        p.serverEvents.onData = received;
        int credits = p.handshake();
        assertThat(credits).isEqualTo(OPTIONS.receiveSlots());
        List<byte[]> sent = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < credits; i++) {
            sent.add(random(random, p.client.maxFramePayload()));
        }
        p.sendData(sent, credits);
        await("a full ring").atMost(WAIT).until(() -> received.held.size() == credits);
        assertThat(receiveSlotsInUse()).as("receive slots leased").isIn(credits, -1);
        assertSame(received.frames, sent, "a full ring");
        received.releaseHeld();
        await("the ring free again").atMost(WAIT).untilAsserted(() -> assertThat(receiveSlotsInUse()).isIn(0, -1));
        assertThat(received.mostHeld.get()).isEqualTo(credits);
    }

    /** Frames queued before close() are delivered, then the peer learns of an orderly close (cause null). */
    @ParameterizedTest(name = "closed by the {0}")
    @ValueSource(strings = {"client", "server"})
    void closeFromEitherSideIsOrderly(String closer) throws Exception {
        Pair p = connect();
        p.handshake();
        boolean byClient = closer.equals("client");
        FrameConnection closing = byClient ? p.client : p.server;
        FrameConnection other = byClient ? p.server : p.client;
        Events otherEvents = byClient ? p.serverEvents : p.clientEvents;
        byte[] last = random(new Random(4), 200);
        closing.sendControl(FrameType.END, ByteBuffer.wrap(last));
        closing.close();
        otherEvents.expectControl(FrameType.END, last);
        assertThat(otherEvents.closed.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("the %s's handler told of the close", byClient ? "server" : "client").isEqualTo(Events.ORDERLY);
        closing.onClose().block(WAIT);
        other.close();
        other.onClose().block(WAIT);
        closing.close();
        closing.onClose().block(WAIT);
    }

    /** A sender whose connection is lost mid-stream: its receiver fails with TRUNCATED ("peer died", protocol.md). */
    @Test
    void aPeerLostMidStreamFailsTheStreamAsTruncated() {
        AtomicLong bytes = new AtomicLong();
        SingleStreamServer server = FluxReceiver.create().host(host()).port(0).key("k").transport(transport)
                .handle(in -> in.receiveChunks().doOnNext(c -> {
                    bytes.addAndGet(c.remaining());
                    c.release();
                }).then()).bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        try {
            Flux<ByteBuffer> endless = Flux.generate(s -> s.next(ByteBuffer.wrap(new byte[8192])));
            Mono<Void> sent = FluxSender.create().host(host()).port(server.address().getPort()).key("k").transport(transport)
                    .send(endless).cache();
            sent.subscribe(v -> { }, e -> { });
            await("the stream under way").atMost(WAIT).until(() -> bytes.get() > 256 * 1024);
            // The first connection made is the sender's: its loss is what a receiver sees when the sending host dies.
            assertThat(connected).as("connections the sender made").hasSize(1);
            connected.get(0).close();
            assertThatThrownBy(() -> outcome.block(WAIT)).isInstanceOf(RdmaFluxException.class)
                    .satisfies(e -> assertThat(((RdmaFluxException) e).code()).as("%s", e.getMessage())
                            .isEqualTo(ErrorCode.TRUNCATED));
            assertThatThrownBy(() -> sent.block(WAIT)).as("the sender fails too").isInstanceOf(RdmaFluxException.class);
        } finally {
            server.disposeNow(WAIT);
        }
    }

    // ---- driving a pair of connections as the engine would

    private Pair connect() throws InterruptedException {
        BlockingQueue<FrameConnection> accepted = new LinkedBlockingQueue<>();
        TransportServer server = transport.listen(listenAddress(), OPTIONS, accepted::add).block(WAIT);
        FrameConnection client = transport.connect(server.address(), OPTIONS).block(WAIT);
        FrameConnection serverSide = accepted.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(serverSide).as("the listener accepted the connection").isNotNull();
        return new Pair(client, serverSide);
    }

    private final class Pair {
        final FrameConnection client;
        final FrameConnection server;
        final Events clientEvents = new Events();
        final Events serverEvents = new Events();
        final Semaphore sendSlots;

        Pair(FrameConnection client, FrameConnection server) {
            this.client = client;
            this.server = server;
            this.sendSlots = new Semaphore(client.sendSlots());
            clientEvents.onSendSlotFree = sendSlots::release;
            client.start(clientEvents);
            server.start(serverEvents);
        }

        /**
         * The engine's shape: the client's HELLO and AUTH (exactly two frames: the RDMA transport
         * holds two small receives for them, and a DATA frame in a small receive is an error), then
         * the server takes data and answers with its ring size, the client's credits.
         */
        int handshake() throws InterruptedException {
            client.sendControl(FrameType.HELLO, ByteBuffer.allocate(0));
            client.sendControl(FrameType.AUTH, ByteBuffer.wrap(new byte[32]));
            serverEvents.expectControl(FrameType.HELLO, new byte[0]);
            serverEvents.expectControl(FrameType.AUTH, new byte[32]);
            server.acceptData();
            server.sendControl(FrameType.HELLO, ByteBuffer.allocate(4).putInt(0, server.receiveSlots()));
            return ByteBuffer.wrap(clientEvents.expectControl(FrameType.HELLO)).getInt();
        }

        /** Sends each frame while holding a credit and a send slot; CREDIT frames from the server give credits back. */
        void sendData(List<byte[]> frames, int initialCredits) throws InterruptedException {
            Semaphore credits = new Semaphore(initialCredits);
            clientEvents.onCredit = credits::release;
            for (byte[] frame : frames) {
                assertThat(credits.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .as("a credit (closes seen: client %s, server %s)", clientEvents.closed, serverEvents.closed).isTrue();
                assertThat(sendSlots.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .as("a send slot (closes seen: client %s, server %s)", clientEvents.closed, serverEvents.closed).isTrue();
                Chunk c = pool.acquire();
                c.buffer().put(frame).flip();
                client.sendData(c);
            }
        }

        void close() {
            client.close();
            server.close();
            client.onClose().block(WAIT);
            server.onClose().block(WAIT);
        }
    }

    /** What a handler was given, for the test thread to take in order. */
    private static final class Events implements FrameHandler {
        static final Throwable ORDERLY = new Throwable("orderly close");
        final BlockingQueue<Object[]> control = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> closed = new LinkedBlockingQueue<>();
        volatile Consumer<Chunk> onData = Chunk::release;
        volatile Runnable onSendSlotFree = () -> { };
        volatile Consumer<Integer> onCredit = n -> { };

        @Override
        public void onControlFrame(FrameType type, ByteBuffer payload) {
            byte[] bytes = new byte[payload.remaining()];
            payload.duplicate().get(bytes);
            if (type == FrameType.CREDIT) {
                onCredit.accept(ByteBuffer.wrap(bytes).getInt());
                return;
            }
            control.add(new Object[] {type, bytes});
        }

        @Override
        public void onDataFrame(Chunk payload) {
            onData.accept(payload);
        }

        @Override
        public void onSendSlotFree() {
            onSendSlotFree.run();
        }

        @Override
        public void onClosed(Throwable cause) {
            closed.add(cause == null ? ORDERLY : cause);
        }

        byte[] expectControl(FrameType type) throws InterruptedException {
            Object[] frame = control.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(frame).as("a %s frame", type).isNotNull();
            assertThat(frame[0]).isEqualTo(type);
            return (byte[]) frame[1];
        }

        void expectControl(FrameType type, byte[] payload) throws InterruptedException {
            assertThat(expectControl(type)).as("the %s frame's payload", type).isEqualTo(payload);
        }
    }

    /** The server's data: each frame's bytes, and either released at once with a CREDIT back, or held. */
    private static final class Received implements Consumer<Chunk> {
        final List<byte[]> frames = new CopyOnWriteArrayList<>();
        final List<Chunk> held = new CopyOnWriteArrayList<>();
        final AtomicInteger mostHeld = new AtomicInteger();
        private final AtomicInteger holding = new AtomicInteger();
        private final FrameConnection server;
        private final boolean release;

        Received(FrameConnection server, boolean release) {
            this.server = server;
            this.release = release;
        }

        @Override
        public void accept(Chunk chunk) {
            mostHeld.accumulateAndGet(holding.incrementAndGet(), Math::max);
            byte[] bytes = new byte[chunk.remaining()];
            chunk.buffer().duplicate().get(bytes);
            frames.add(bytes);
            if (release) {
                holding.decrementAndGet();
                chunk.release();
                server.sendControl(FrameType.CREDIT, ByteBuffer.allocate(4).putInt(0, 1));
            } else {
                held.add(chunk);
            }
        }

        void releaseHeld() {
            for (Chunk c : held) {
                holding.decrementAndGet();
                c.release();
            }
            held.clear();
        }
    }

    /** Frame by frame: the same sizes and bytes, said briefly (a frame is up to 16 KiB). */
    private static void assertSame(List<byte[]> received, List<byte[]> sent, String what) {
        assertThat(received).as("%s: frames", what).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            assertThat(received.get(i).length).as("%s: frame %d, length", what, i).isEqualTo(sent.get(i).length);
            assertThat(Arrays.mismatch(received.get(i), sent.get(i))).as("%s: frame %d, first byte that differs", what, i)
                    .isEqualTo(-1);
        }
    }

    private static byte[] random(Random random, int size) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    /** The transport under test, keeping every connection it makes and every listener, so that both are closed and counted. */
    private final class Recording implements Transport {
        private final Transport inner;

        Recording(Transport inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public String unavailableReason() {
            return inner.unavailableReason();
        }

        @Override
        public Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options) {
            return inner.connect(address, options).doOnNext(c -> {
                connections.add(c);
                connected.add(c);
            });
        }

        @Override
        public Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                            Consumer<FrameConnection> acceptor) {
            return inner.listen(address, options, c -> {
                connections.add(c);
                acceptor.accept(c);
            }).doOnNext(servers::add);
        }
    }
}
