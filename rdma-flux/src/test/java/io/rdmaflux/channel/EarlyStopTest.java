package io.rdmaflux.channel;

import static io.rdmaflux.channel.Outcomes.assertCode;
import static io.rdmaflux.channel.Outcomes.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A handler that takes what it needs and completes before the end of the stream ends it on
 * purpose: a success on the receiver, and on the sender a failure of its own kind, STOPPED,
 * told apart from a cancel. Both sides' observers see it so. Real TCP on loopback.
 */
class EarlyStopTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(4096)
            .withReceiveSlots(4).withSendSlots(4);

    @Test
    void aHandlerThatTakesFiveFramesStopsTheStreamAndTheSenderSeesStopped() {
        List<StreamOutcome> outcomes = new CopyOnWriteArrayList<>();
        StreamObserver recorder = new StreamObserver() {
            @Override
            public void onEnd(LiveStream stream, StreamOutcome outcome) {
                outcomes.add(outcome);
            }
        };
        AtomicInteger taken = new AtomicInteger();
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                .transport(Transports.tcp()).options(OPTIONS).observe(recorder)
                .handle(in -> in.receive().take(5).doOnNext(b -> taken.incrementAndGet()).then())
                .bindOne().block(WAIT);
        Mono<Void> received = server.outcome().cache();
        received.subscribe(v -> { }, e -> { });
        // The source never ends: only the receiver's stop can end the stream.
        Throwable sent = failure(FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(Transports.tcp()).options(OPTIONS).observe(recorder)
                .send(StreamMetadata.empty(), s -> Flux.<Chunk>generate(sink ->
                        sink.next(Chunk.wrap(ByteBuffer.wrap(new byte[4096]))))));

        assertCode(sent, ErrorCode.STOPPED);
        assertThat(((RdmaFluxException) sent).reportedByPeer()).isTrue();
        assertThat(sent).hasMessageStartingWith("receiver reported: receiver stopped the stream on purpose after ");
        // The receiver's own outcome is a success: the handler completed as it meant to.
        assertThat(received.block(WAIT)).isNull();
        assertThat(taken).hasValue(5);
        assertThat(outcomes).extracting(StreamOutcome::side, StreamOutcome::result, StreamOutcome::code)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(StreamOutcome.Side.SENDER, StreamOutcome.Result.STOPPED,
                                ErrorCode.STOPPED),
                        org.assertj.core.groups.Tuple.tuple(StreamOutcome.Side.RECEIVER, StreamOutcome.Result.STOPPED,
                                ErrorCode.STOPPED));
        assertThat(outcomes).filteredOn(o -> o.side() == StreamOutcome.Side.RECEIVER)
                .allSatisfy(o -> assertThat(o.failure()).isNull());
    }

    @Test
    void aSenderOlderThanStoppedIsToldCancelledAsBefore() {
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                .transport(Transports.tcp()).options(OPTIONS)
                .handle(in -> in.receive().take(5).then())
                .bindOne().block(WAIT);
        Mono<Void> received = server.outcome().cache();
        received.subscribe(v -> { }, e -> { });
        Throwable sent = failure(Transports.tcp().connect(server.address(), OPTIONS.transportOptions())
                .flatMap(c -> {
                    SenderSession old = new SenderSession(c, "k".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            OPTIONS, StreamMetadata.empty(), s -> Flux.<Chunk>generate(sink ->
                                    sink.next(Chunk.wrap(ByteBuffer.wrap(new byte[4096])))));
                    old.features = 0;
                    return old.run();
                }));
        assertCode(sent, ErrorCode.CANCELLED);
        assertThat(sent).hasMessageContaining("receiver stopped the stream on purpose");
        assertThat(received.block(WAIT)).isNull();
    }

    @Test
    void aHandlerThatFailsIsStillAFailureOnBothSides() {
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k")
                .transport(Transports.tcp()).options(OPTIONS)
                .handle(in -> in.receive().take(1).then(Mono.<Void>error(
                        new RdmaFluxException(ErrorCode.SINK_FAILED, "disk full"))))
                .bindOne().block(WAIT);
        Mono<Void> received = server.outcome().cache();
        received.subscribe(v -> { }, e -> { });
        Throwable sent = failure(FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k")
                .transport(Transports.tcp()).options(OPTIONS)
                .send(StreamMetadata.empty(), s -> Flux.<Chunk>generate(sink ->
                        sink.next(Chunk.wrap(ByteBuffer.wrap(new byte[4096]))))));
        assertCode(sent, ErrorCode.SINK_FAILED);
        assertCode(failure(received), ErrorCode.SINK_FAILED);
    }
}
