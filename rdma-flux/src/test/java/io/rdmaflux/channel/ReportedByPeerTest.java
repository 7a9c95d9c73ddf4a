package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static io.rdmaflux.channel.Outcomes.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link RdmaFluxException#reportedByPeer()}: set on the failure a side learns from its peer's
 * ERROR frame, never on the side's own failure, so that a tool running many streams (rdpipe's
 * hops) names the one that failed first rather than its neighbours, without reading messages.
 */
class ReportedByPeerTest {

    private static final ChannelOptions OPTIONS = MemoryPair.OPTIONS;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static Flux<Chunk> chunks(int n) {
        return Flux.range(0, n).map(i -> Chunk.wrap(ByteBuffer.wrap(TestData.bytes(i, 5000))));
    }

    @Test
    void aSourceFailureIsTheSendersOwnAndReportedByPeerAtTheReceiver() {
        MemoryTransport t = new MemoryTransport();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().then()).bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        Throwable sender = failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t)
                .options(OPTIONS).send(StreamMetadata.empty(), s -> chunks(3).concatWith(Mono.error(
                        new RdmaFluxException(ErrorCode.SOURCE_FAILED, "input went away")))));
        assertCode(sender, ErrorCode.SOURCE_FAILED);
        assertThat(((RdmaFluxException) sender).reportedByPeer()).as("the sender's own failure").isFalse();
        Throwable receiver = failure(outcome);
        assertCode(receiver, ErrorCode.SOURCE_FAILED);
        assertThat(((RdmaFluxException) receiver).reportedByPeer()).as("what the receiver was told").isTrue();
    }

    /** A relay passes on what its own peer reported: the sender hears it once, not once per hop. */
    @Test
    void aReportRelayedByThePeerIsPrefixedOnce() {
        for (String said : new String[] {"disk full", "receiver reported: disk full"}) {
            MemoryTransport t = new MemoryTransport();
            SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                    .handle(in -> in.receive().take(1).then(Mono.<Void>error(
                            new RdmaFluxException(ErrorCode.SINK_FAILED, said)))).bindOne().block(WAIT);
            server.outcome().subscribe(v -> { }, e -> { });
            Throwable sender = failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t)
                    .options(OPTIONS).send(StreamMetadata.empty(), s -> chunks(3).concatWith(Flux.never())));
            assertThat(sender).hasMessage("receiver reported: disk full");
        }
    }

    @Test
    void aReceiverThatStopsReadingSucceedsAndTheSenderIsToldStoppedByItsPeer() {
        MemoryTransport t = new MemoryTransport();
        SingleStreamServer server = FluxReceiver.create().port(0).key("k").transport(t).options(OPTIONS)
                .handle(in -> in.receive().take(1).then()).bindOne().block(WAIT);
        Mono<Void> outcome = server.outcome().cache();
        outcome.subscribe(v -> { }, e -> { });
        // The source never ends: only the receiver's stopping can end the stream.
        Throwable sender = failure(FluxSender.create().port(server.address().getPort()).key("k").transport(t)
                .options(OPTIONS).send(StreamMetadata.empty(), s -> chunks(3).concatWith(Flux.never())));
        assertCode(sender, ErrorCode.STOPPED);
        assertThat(((RdmaFluxException) sender).reportedByPeer()).isTrue();
        // The handler ended the stream on purpose: no failure of the receiver's.
        assertThat(failure(outcome)).isNull();
    }

    @Test
    void wrappingKeepsTheFlagAndNewFailuresAreOwn() {
        RdmaFluxException peer = RdmaFluxException.fromPeer(ErrorCode.CHECKSUM, "receiver reported: mismatch");
        assertThat(RdmaFluxException.wrap(peer, ErrorCode.INTERNAL)).isSameAs(peer);
        assertThat(new RdmaFluxException(ErrorCode.CHECKSUM, "receiver reported: mismatch").reportedByPeer())
                .as("a message alone decides nothing").isFalse();
        assertThat(RdmaFluxException.wrap(new IllegalStateException("x"), ErrorCode.INTERNAL).reportedByPeer()).isFalse();
        assertThat(RdmaFluxException.isReportedByPeer(new IllegalStateException("wrapped", peer))).isTrue();
        assertThat(RdmaFluxException.isReportedByPeer(new IllegalStateException("x"))).isFalse();
    }
}
