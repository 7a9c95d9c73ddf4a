package io.rdmaflux.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.TransportOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.netty.resources.LoopResources;

/**
 * What the default loops leave open when they stop ends then: a frame connection that the
 * shutdown's race registered after the loops' last sweep hears "shut down" from the stopping
 * thread and its socket closes, whether it was started before or after. The connections here
 * run on live loops of the test's own, tracked by a generation whose loops stop: that is the
 * orphan's situation (tracked, still open after the stop) without depending on the race.
 * Real sockets on loopback; the peer is a plain {@link ServerSocket}.
 */
class LoopGenerationTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final TransportOptions OPTIONS = new TransportOptions(4096, 4, 4, Duration.ofSeconds(5));

    private LoopResources live;
    private ServerSocket peer;

    @BeforeEach
    void start() throws IOException {
        live = LoopResources.create("generation-test", 1, true);
        peer = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void stop() throws IOException {
        peer.close();
        live.disposeLater(Duration.ZERO, WAIT).block(WAIT);
    }

    @Test
    void aConnectionStillOpenWhenItsLoopsStopIsToldAndClosed() throws Exception {
        TcpFrameConnection c = connect();
        try (Socket accepted = accept()) {
            Recorder handler = new Recorder();
            c.start(handler.handler);
            LoopGeneration generation = stoppingGeneration();
            generation.add(c, c.channel());

            generation.stop(WAIT);

            assertToldShutDown(handler);
            assertClosedFor(accepted);
            assertThat(generation.tracked()).isZero();
        }
    }

    @Test
    void aConnectionAddedAfterItsLoopsStoppedIsEndedAtOnceAndItsLaterStartIsTold() throws Exception {
        TcpFrameConnection c = connect();
        try (Socket accepted = accept()) {
            LoopGeneration generation = stoppingGeneration();
            generation.stop(WAIT);

            generation.add(c, c.channel());
            Recorder handler = new Recorder();
            c.start(handler.handler);

            assertToldShutDown(handler);
            assertClosedFor(accepted);
            assertThat(handler.closings).as("told once").hasValue(1);
        }
    }

    @Test
    void aConnectionClosedWhileItsLoopsRunIsNoLongerTracked() throws Exception {
        TcpFrameConnection c = connect();
        try (Socket accepted = accept()) {
            LoopGeneration generation = LoopGeneration.owned(live);
            generation.add(c, c.channel());
            assertThat(generation.tracked()).isEqualTo(1);

            c.close();

            Awaitility.await().atMost(WAIT).until(() -> generation.tracked() == 0);
        }
    }

    /** A generation whose loops are not the connections': stopping it leaves them running. */
    private static LoopGeneration stoppingGeneration() {
        return LoopGeneration.owned(LoopResources.create("generation-test-stopping", 1, true));
    }

    private TcpFrameConnection connect() {
        FrameConnection c = new TcpTransport(live).connect(
                new InetSocketAddress(peer.getInetAddress(), peer.getLocalPort()), OPTIONS).block(WAIT);
        return (TcpFrameConnection) c;
    }

    private Socket accept() throws IOException {
        peer.setSoTimeout((int) WAIT.toMillis());
        Socket s = peer.accept();
        s.setSoTimeout((int) WAIT.toMillis());
        return s;
    }

    private static void assertToldShutDown(Recorder handler) throws Exception {
        Throwable cause = handler.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(cause).isInstanceOf(IOException.class).hasMessageContaining("shut down");
    }

    /** The peer reads the end of the stream: the socket was closed, not left open. */
    private static void assertClosedFor(Socket accepted) throws IOException {
        InputStream in = accepted.getInputStream();
        assertThat(in.read()).as("the peer sees the connection closed").isEqualTo(-1);
    }

    /** Records how the connection ended; frames are not this test's business. */
    private static final class Recorder {
        final CompletableFuture<Throwable> closed = new CompletableFuture<>();
        final AtomicInteger closings = new AtomicInteger();
        final FrameHandler handler = FrameHandler.controlOnly((type, payload) -> { }, cause -> {
            closings.incrementAndGet();
            closed.complete(cause);
        });
    }
}
