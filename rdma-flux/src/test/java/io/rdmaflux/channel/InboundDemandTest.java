package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.rdmaflux.channel.TestData.awaitZero;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.util.RaceTestUtils;

/**
 * Demand, cancellation and buffer ownership at the channel's edges: the receiver's demand is
 * the only thing that moves data, and every lease is released on complete, error and cancel.
 */
class InboundDemandTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A source of {@code n} full frames from a pool, so that leaks show in {@code outstanding()}. */
    private static Flux<Chunk> pooled(BufferPool pool, int n) {
        return Flux.range(0, n).map(i -> {
            Chunk c = pool.acquire();
            while (c.buffer().hasRemaining()) {
                c.buffer().put((byte) (int) i);
            }
            c.buffer().flip();
            return c;
        });
    }

    @Test
    void nothingIsDeliveredWithoutDemandAndTheSenderStopsAtTheRingSize() {
        BufferPool source = new BufferPool("source", 4096, 64);
        AtomicInteger produced = new AtomicInteger();
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> pooled(source, 40).doOnNext(c -> produced.incrementAndGet()));
            StepVerifier.create(pair.stream().receiveChunks(), 0)
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(300))
                    .then(() -> assertThat(produced.get())
                            .as("chunks produced while the receiver asked for none")
                            .isLessThanOrEqualTo(MemoryPair.OPTIONS.receiveSlots() + MemoryPair.OPTIONS.sendSlots()))
                    .thenRequest(1)
                    .assertNext(c -> {
                        assertThat(c.remaining()).isEqualTo(4096);
                        c.release();
                    })
                    .thenRequest(Long.MAX_VALUE)
                    .thenConsumeWhile(c -> {
                        c.release();
                        return true;
                    })
                    .expectComplete()
                    .verify(WAIT);
            pair.handlerDone.complete(null);
            pair.sent.block(WAIT);
            assertThat(produced.get()).isEqualTo(40);
            assertThat(pair.transport.slotsInUse()).as("receive slots leased").isZero();
            assertThat(source.outstanding()).as("source buffers leased").isZero();
        }
    }

    @Test
    void receiverCancelFailsTheSenderAndLeaksNothing() {
        BufferPool source = new BufferPool("source", 4096, 64);
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> pooled(source, 1000));
            StepVerifier.create(pair.stream().receive().take(3))
                    .expectNextCount(3)
                    .verifyComplete();
            assertThatThrownBy(() -> pair.sent.block(WAIT))
                    .isInstanceOf(RdmaFluxException.class)
                    .hasMessageContaining("cancelled")
                    .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.CANCELLED));
            awaitZero(pair.transport::slotsInUse, "receive slots leased");
            awaitZero(source::outstanding, "source buffers leased");
        }
    }

    /**
     * A cancel from another thread while a chunk is being handed over must not lose it: it once
     * went to a detached subscriber unreleased (a receive slot and its credit lost for good).
     * Each round races the delivery against the cancel ({@link RaceTestUtils#race}) on the
     * inbound stream's own edge; whoever wins, the chunk is released exactly once.
     */
    @Test
    void cancelRacingADeliveryNeverLosesTheChunkInFlight() {
        for (int round = 0; round < 20_000; round++) {
            Sinks.Many<Chunk> inbound = Sinks.many().unicast().onBackpressureBuffer();
            AtomicInteger released = new AtomicInteger();
            Chunk chunk = Chunk.of(ByteBuffer.allocate(1), released::incrementAndGet);
            BaseSubscriber<Chunk> reader = new BaseSubscriber<>() {
                @Override
                protected void hookOnNext(Chunk c) {
                    c.release();
                }
            };
            DetachOnCancel.edge(inbound.asFlux()).subscribe(reader);
            RaceTestUtils.race(() -> {
                // As the session does: a chunk the stream refuses is released where it was offered.
                if (inbound.tryEmitNext(chunk).isFailure()) {
                    chunk.releaseQuietly();
                }
            }, reader::cancel);
            assertThat(released).as("releases of the chunk in round %d", round).hasValue(1);
        }
    }

    /**
     * Operators assembled as fuseable (doOnNext right on the stream, as rdrecv does) or asking
     * for queue fusion (publishOn, concatMapIterable): the stream must still flow.
     */
    @Test
    void operatorsThatAskForFusionWork() {
        BufferPool source = new BufferPool("source", 4096, 64);
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> pooled(source, 20));
            AtomicInteger peeked = new AtomicInteger();
            StepVerifier.create(pair.stream().receiveChunks()
                            .doOnNext(c -> peeked.incrementAndGet())
                            .publishOn(reactor.core.scheduler.Schedulers.single())
                            .concatMapIterable(java.util.List::of)
                            .doOnNext(Chunk::release))
                    .expectNextCount(20)
                    .expectComplete()
                    .verify(WAIT);
            pair.handlerDone.complete(null);
            pair.sent.block(WAIT);
            awaitZero(pair.transport::slotsInUse, "receive slots leased");
        }
    }

    @Test
    void senderSourceErrorReachesTheReceiverAndLeaksNothing() {
        BufferPool source = new BufferPool("source", 4096, 64);
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> pooled(source, 10).concatWith(Mono.error(new java.io.IOException("disk read error"))));
            StepVerifier.create(pair.stream().receive())
                    .expectNextCount(10)
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RdmaFluxException.class)
                            .hasMessageContaining("disk read error")
                            .satisfies(x -> assertThat(((RdmaFluxException) x).code()).isEqualTo(ErrorCode.SOURCE_FAILED)))
                    .verify(WAIT);
            assertThatThrownBy(() -> pair.sent.block(WAIT)).hasMessageContaining("disk read error");
            awaitZero(pair.transport::slotsInUse, "receive slots leased");
            awaitZero(source::outstanding, "source buffers leased");
        }
    }

    @Test
    void senderCancelFailsTheReceiverAndLeaksNothing() {
        BufferPool source = new BufferPool("source", 4096, 64);
        try (MemoryPair pair = new MemoryPair()) {
            reactor.core.Disposable sending = FluxSender.create().port(pair.server.address().getPort()).key("k")
                    .transport(pair.transport).options(MemoryPair.OPTIONS)
                    .send(io.rdmaflux.protocol.StreamMetadata.empty(), s -> pooled(source, 5).concatWith(Flux.never()))
                    .subscribe(v -> { }, e -> { });
            StepVerifier.create(pair.stream().receive())
                    .expectNextCount(5)
                    .then(sending::dispose)
                    .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("sender cancelled")
                            .satisfies(x -> assertThat(((RdmaFluxException) x).code()).isEqualTo(ErrorCode.CANCELLED)))
                    .verify(WAIT);
            awaitZero(source::outstanding, "source buffers leased");
            awaitZero(pair.transport::slotsInUse, "receive slots leased");
        }
    }

    @Test
    void anInboundStreamCanBeSubscribedOnlyOnce() {
        try (MemoryPair pair = new MemoryPair()) {
            pair.send(s -> Flux.just(Chunk.wrap(java.nio.ByteBuffer.wrap(new byte[] {1}))));
            InboundStream in = pair.stream();
            in.receive().subscribe();
            StepVerifier.create(in.receive())
                    .expectErrorMessage("an inbound stream can be subscribed to only once")
                    .verify(WAIT);
        }
    }

    @Test
    void aChunkReleasedTwiceIsABugThatThrows() {
        Chunk c = Chunk.wrap(java.nio.ByteBuffer.allocate(1));
        c.release();
        assertThatThrownBy(c::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("twice");
        assertThatThrownBy(c::buffer).isInstanceOf(IllegalStateException.class);
    }
}
