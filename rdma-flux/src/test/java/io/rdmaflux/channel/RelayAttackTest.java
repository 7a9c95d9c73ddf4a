package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static io.rdmaflux.channel.Outcomes.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.hostile.FrameRelay;
import io.rdmaflux.hostile.FrameRelay.Direction;
import io.rdmaflux.hostile.RawPeer.Frame;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Someone on the path who does not know the key, played by a {@link FrameRelay}: whatever it
 * drops, alters, reorders or forges, the stream either arrives intact or fails on both sides
 * with a classified code, and the receiver's handler never completes (a file would not be
 * committed). Forged successes, forged failure reasons and a stripped codec chain are caught by
 * the sealed control frames of protocol version 2; altered data by the CRC32C (accidents, and
 * this relay, which does not bother to forge a matching checksum; see docs/protocol.md).
 */
class RelayAttackTest {

    private static final String KEY = "the key";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(16 * 1024)
            .withReceiveSlots(4).withSendSlots(4);
    private static final byte[] DATA = TestData.bytes(5, 200_000);
    private static final StreamMetadata METADATA = StreamMetadata.empty()
            .with(StreamMetadata.CODECS, "zstd:1,aes-256-gcm:1").with(StreamMetadata.NAME, "backup.tar");

    /** How a relayed stream ended on each side, and what the receiver's handler saw and did. */
    private record Outcome(Throwable sender, Throwable receiver, boolean committed, List<StreamMetadata> metadata,
                           byte[] received) {
    }

    private static Outcome relay(FrameRelay.Rule rule) {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        AtomicBoolean committed = new AtomicBoolean();
        List<StreamMetadata> metadata = new CopyOnWriteArrayList<>();
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY)
                .transport(new TcpTransport()).options(OPTIONS)
                .handle(in -> {
                    metadata.add(in.metadata());
                    return in.receive().doOnNext(b -> {
                        byte[] c = new byte[b.remaining()];
                        b.get(c);
                        received.write(c, 0, c.length);
                    }).then(Mono.fromRunnable(() -> committed.set(true)));
                })
                .bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        try (FrameRelay relay = FrameRelay.start(new InetSocketAddress("127.0.0.1", server.address().getPort()), rule)) {
            Throwable sender = failure(FluxSender.create().host("127.0.0.1").port(relay.port()).key(KEY)
                    .transport(new TcpTransport()).options(OPTIONS)
                    .send(METADATA, s -> Flux.fromIterable(TestData.pieces(DATA, 3, 30_000)).map(io.rdmaflux.buffer.Chunk::wrap)));
            Throwable receiver = failure(outcome);
            assertThat(relay.failures()).as("the relay's own errors").isEmpty();
            return new Outcome(sender, receiver, committed.get(), metadata, received.toByteArray());
        } finally {
            server.dispose();
        }
    }



    /** Both sides failed and nothing was committed. */
    private static void assertFailedWithoutCommit(Outcome o) {
        assertThat(o.sender()).as("the sender's outcome").isNotNull();
        assertThat(o.receiver()).as("the receiver's outcome").isNotNull();
        assertThat(o.committed()).as("the receiver's handler completed").isFalse();
    }

    private static Frame tagged(FrameType type, ByteBuffer payload) {
        // Shaped like a sealed frame, with a tag the relay cannot compute.
        byte[] p = new byte[payload.remaining() + 32];
        payload.get(p, 0, payload.remaining());
        return new Frame(type.code(), p);
    }

    @Test
    void aRelayThatPassesEverythingChangesNothing() {
        Outcome o = relay(FrameRelay.PASS);
        assertThat(o.sender()).isNull();
        assertThat(o.receiver()).isNull();
        assertThat(o.committed()).isTrue();
        assertThat(o.received()).isEqualTo(DATA);
        assertThat(o.metadata()).containsExactly(METADATA);
    }

    @Test
    void aForgedEndAckDoesNotGiveTheSenderSuccess() {
        Outcome o = relay(FrameRelay.FORGE_END_ACK);
        assertFailedWithoutCommit(o);
        assertCode(o.sender(), ErrorCode.PROTOCOL);
        assertThat(o.sender()).hasMessageContaining("END_ACK frame failed authentication");
    }

    @Test
    void aStrippedCodecChainIsCaughtBeforeTheHandlerSeesIt() {
        Outcome o = relay(FrameRelay.STRIP_CODECS);
        assertFailedWithoutCommit(o);
        assertThat(o.metadata()).as("metadata the handler saw").isEmpty();
        assertCode(o.receiver(), ErrorCode.PROTOCOL);
        assertCode(o.sender(), ErrorCode.PROTOCOL);
    }

    @Test
    void aForgedFailureReasonIsNotBelieved() {
        AtomicBoolean forged = new AtomicBoolean();
        Outcome o = relay((direction, frame, link) -> {
            link.forward(frame);
            if (direction == Direction.TO_RECEIVER && frame.type() == FrameType.DATA.code() && !forged.getAndSet(true)) {
                link.reply(tagged(FrameType.ERROR, ControlFrames.error(ErrorCode.CHECKSUM, "checksum mismatch (forged)")));
                link.forward(tagged(FrameType.ERROR, ControlFrames.error(ErrorCode.SOURCE_FAILED, "input failed (forged)")));
            }
        });
        assertFailedWithoutCommit(o);
        assertCode(o.sender(), ErrorCode.PROTOCOL);
        assertCode(o.receiver(), ErrorCode.PROTOCOL);
    }

    @Test
    void aFlippedDataBitFailsBothSidesWithChecksum() {
        Outcome o = relay(FrameRelay.flippingDataBit(3, 100));
        assertFailedWithoutCommit(o);
        assertCode(o.receiver(), ErrorCode.CHECKSUM);
        assertCode(o.sender(), ErrorCode.CHECKSUM);
    }

    @Test
    void aDroppedDataFrameFailsBothSides() {
        AtomicInteger data = new AtomicInteger();
        Outcome o = relay((direction, frame, link) -> {
            if (!(frame.type() == FrameType.DATA.code() && data.incrementAndGet() == 4)) {
                link.forward(frame);
            }
        });
        assertFailedWithoutCommit(o);
        assertCode(o.receiver(), ErrorCode.TRUNCATED);
        assertCode(o.sender(), ErrorCode.TRUNCATED);
    }

    @Test
    void aDuplicatedDataFrameFailsBothSides() {
        AtomicInteger data = new AtomicInteger();
        Outcome o = relay((direction, frame, link) -> {
            link.forward(frame);
            if (frame.type() == FrameType.DATA.code() && data.incrementAndGet() == 2) {
                link.forward(frame);
            }
        });
        assertFailedWithoutCommit(o);
    }

    @Test
    void reorderedDataFramesFailBothSidesWithChecksum() {
        AtomicReference<Frame> held = new AtomicReference<>();
        AtomicInteger data = new AtomicInteger();
        Outcome o = relay((direction, frame, link) -> {
            if (frame.type() == FrameType.DATA.code()) {
                int n = data.incrementAndGet();
                if (n == 2) {
                    held.set(frame);
                    return;
                }
                link.forward(frame);
                if (n == 3) {
                    link.forward(held.get());
                }
                return;
            }
            link.forward(frame);
        });
        assertFailedWithoutCommit(o);
        assertCode(o.receiver(), ErrorCode.CHECKSUM);
        assertCode(o.sender(), ErrorCode.CHECKSUM);
    }

    @Test
    void aLostEndAckLeavesTheCommittedReceiverSuccessfulAndTheSenderFailed() {
        Outcome o = relay(FrameRelay.dropping(FrameType.END_ACK));
        assertThat(o.receiver()).as("the receiver, whose handler completed").isNull();
        assertThat(o.committed()).isTrue();
        assertThat(o.received()).isEqualTo(DATA);
        assertCode(o.sender(), ErrorCode.TRUNCATED);
    }
}
