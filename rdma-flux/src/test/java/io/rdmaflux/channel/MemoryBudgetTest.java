package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.TransportServer;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.util.RaceTestUtils;

/**
 * A receiver's memory budget over real TCP on loopback: streams within it run, a stream beyond
 * it is refused with BUSY (its sender told that the receiver's memory budget was full) and a
 * stream that ends gives its share back.
 */
class MemoryBudgetTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A ring of 4 x 4 KiB = 16 KiB per stream. */
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(4096)
            .withReceiveSlots(4).withSendSlots(4);
    private static final long RING = 4 * 4096;

    @Test
    void streamsBeyondTheBudgetAreRefusedBusyAndThoseWithinComplete() {
        Sinks.Empty<Void> gate = Sinks.empty();
        AtomicInteger handling = new AtomicInteger();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .options(OPTIONS).memoryBudget(2 * RING)
                .handle(in -> {
                    handling.incrementAndGet();
                    // Holds its stream (and its share of the budget) until the gate opens.
                    return in.receive().then(gate.asMono());
                })
                .bind().block(WAIT);
        try {
            FluxSender sender = FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                    .transport(TransportKind.TCP).options(OPTIONS);
            Mono<Void> first = send(sender);
            Mono<Void> second = send(sender);
            Awaitility.await("two streams in their handlers").atMost(WAIT).until(() -> handling.get() == 2);

            // Two at once beyond the budget: both refused, neither reaches the handler.
            Mono<Void> third = send(sender);
            Mono<Void> fourth = send(sender);
            for (Mono<Void> refused : java.util.List.of(third, fourth)) {
                assertThatThrownBy(() -> refused.block(WAIT))
                        .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BUSY))
                        .hasMessage("receiver reported: receiver busy: its memory budget for streams (32 KiB) is taken "
                                + "by 2 streams of 16 KiB each (frame size x receive slots); retry later, or raise the "
                                + "receiver's memory budget");
            }
            assertThat(handling).hasValue(2);

            gate.tryEmitEmpty();
            first.block(WAIT);
            second.block(WAIT);
            // Their shares came back: the budget takes two streams again.
            Mono<Void> fifth = send(sender);
            Mono<Void> sixth = send(sender);
            fifth.block(WAIT);
            sixth.block(WAIT);
            assertThat(handling).hasValue(4);
        } finally {
            server.disposeNow(WAIT);
        }
    }

    @Test
    void aBudgetSmallerThanOneStreamsRingFailsTheBind() {
        Mono<ReceiverServer> bind = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                .transport(TransportKind.TCP).options(OPTIONS).memoryBudget(RING - 1).handle(in -> Mono.empty()).bind();
        assertThatThrownBy(() -> bind.block(WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessage("memoryBudget of 16383 bytes is smaller than one stream's receive ring (4096 bytes x 4 slots)");
        assertThatThrownBy(() -> FluxReceiver.create().memoryBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryBudget");
    }

    @Test
    void theDefaultBudgetIsHalfTheDirectMemoryLimitAndAtLeastOneRing() {
        long half = io.rdmaflux.buffer.DirectMemory.limit() / 2;
        assertThat(MemoryBudget.defaultLimit(RING)).isEqualTo(Math.max(half, RING));
        assertThat(MemoryBudget.defaultLimit(half * 2)).isEqualTo(half * 2);
    }

    /**
     * A session that fails (a cancel, a timeout) on another thread just as its sender's AUTH
     * claims its share: whichever comes first, the share goes back. Before, a failure whose
     * clean-up ran before the claim left the share taken for good.
     */
    @Test
    void aSessionThatFailsAsItClaimsGivesItsShareBack() throws Exception {
        MemoryTransport t = new MemoryTransport();
        BlockingQueue<FrameConnection> accepted = new LinkedBlockingQueue<>();
        TransportServer server = t.listen(new InetSocketAddress(0), MemoryPair.OPTIONS.transportOptions(), accepted::add)
                .block(WAIT);
        try {
            MemoryBudget budget = new MemoryBudget(RING, RING);
            Admission admission = new Admission(4, false, budget);
            for (int round = 0; round < 300; round++) {
                t.connect(server.address(), MemoryPair.OPTIONS.transportOptions()).block(WAIT);
                ReceiverSession session = new ReceiverSession(accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS),
                        "k".getBytes(StandardCharsets.UTF_8), MemoryPair.OPTIONS, in -> Mono.empty(), admission);
                RaceTestUtils.race(() -> admission.claim(session), session::cancel);
                assertThat(budget.reserved()).as("bytes still reserved after round %d", round).isZero();
            }
        } finally {
            server.dispose();
        }
    }

    /** One small stream, started now; its outcome, cached. */
    private static Mono<Void> send(FluxSender sender) {
        Mono<Void> sent = sender.send(Mono.fromSupplier(() -> ByteBuffer.wrap(TestData.bytes(1, 10_000)))).cache();
        sent.subscribe(v -> { }, e -> { });
        return sent;
    }
}
