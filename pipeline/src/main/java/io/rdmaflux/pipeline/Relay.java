package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.protocol.StreamMetadata;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A received stream written here and sent on to the next host at the same time (a chain of
 * hosts, rdcp's fan-out): the verified, decoded bytes go both to this pipeline's own sink and,
 * encoded again with the chain their sender announced (keys are per session), to the next
 * host's receiver. Each side goes on when the other fails: a next host that died does not stop
 * this host's copy, and this host's failure (a full disk) does not stop the next host's. The
 * outcome is this host's own; the forward's failure is logged, and the next host reports it.
 */
final class Relay {

    private static final Logger log = Loggers.getLogger(Relay.class);

    private final SendSink next;

    Relay(SendSink next) {
        this.next = next;
    }

    /**
     * Runs {@code data} (plain, decoded from {@code chain}) into {@code downstream} and on to
     * the next host; completes with the local sink's result once both sides ended.
     */
    Mono<SinkResult> run(Flux<Chunk> data, StreamMetadata metadata, LongSupplier received, CodecChain chain,
                         Downstream downstream) {
        return Mono.defer(() -> {
            Tee tee = new Tee(data);
            CodecChain sized = chain.forFrameSize(next.frameSize());
            Upstream forwarded = new Upstream(SourceStream.of(tee.branch(1), metadata), List.of(), sized,
                    Upstream.resolve(sized, downstream.codecs()), sized.blockSize(), PipelineListener.NONE,
                    new PipelineMetrics("relay", List.of(), sized.specs().stream().map(CodecSpec::format).toList(),
                            next.describe()), downstream.failOn());
            Mono<Void> forward = next.write(forwarded)
                    .doOnError(e -> log.info("forwarding to the next host failed: {}", e.getMessage()))
                    .onErrorResume(e -> Mono.empty())
                    // Never subscribed (no next host after all, or it was not reached): write alone.
                    .doFinally(s -> tee.gone(1))
                    .then();
            AtomicReference<SinkResult> result = new AtomicReference<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Mono<Void> local = downstream.accept(new SourceStream(tee.branch(0), metadata, received))
                    .doOnNext(result::set)
                    .doOnError(failed::set)
                    .onErrorResume(e -> Mono.empty())
                    .then();
            return Mono.when(local, forward).then(Mono.defer(() -> failed.get() != null ? Mono.error(failed.get())
                    : Mono.justOrEmpty(result.get())));
        });
    }
}
