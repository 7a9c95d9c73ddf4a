package io.rdmaflux.pipeline;

import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.connector.Filter;
import io.rdmaflux.connector.SinkResult;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * The rest of a pipeline as its source sees it: the filters, the stages and the sink, waiting for one
 * stream. Made by the runner for each run; a {@link PipelineSource} calls {@link #accept} once.
 */
public final class Downstream {

    private final List<Filter> filters;
    private final CodecChain chain;
    private final List<CodecStage> stages;
    private final int blockSize;
    private final CodecRegistry codecs;
    private final PipelineSink sink;
    private final PipelineListener listener;
    private final PipelineMetrics metrics;
    private final Mono<? extends Throwable> failOn;
    private final AtomicBoolean accepted = new AtomicBoolean();

    Downstream(List<Filter> filters, CodecChain chain, int blockSize, CodecRegistry codecs, PipelineSink sink,
               PipelineListener listener, PipelineMetrics metrics, Mono<? extends Throwable> failOn) {
        this.filters = filters;
        this.chain = chain;
        this.stages = Upstream.resolve(chain, codecs);
        this.blockSize = blockSize;
        this.codecs = codecs;
        this.sink = sink;
        this.listener = listener;
        this.metrics = metrics;
        this.failOn = failOn;
    }

    /** A fresh one with the same parts, for a source that carries several streams ({@link ReceiveMany}). */
    Downstream another() {
        return new Downstream(filters, chain, blockSize, codecs, sink, listener, metrics, failOn);
    }

    /**
     * Runs {@code stream} through the filters and stages into the sink; the Mono completes with the sink's
     * result. A pipeline carries one stream: a second call fails.
     */
    public Mono<SinkResult> accept(SourceStream stream) {
        if (!accepted.compareAndSet(false, true)) {
            return Mono.error(new IllegalStateException("a pipeline carries one stream; accept was called twice"));
        }
        return Mono.defer(() -> {
            metrics.stream(stream);
            return sink.write(new Upstream(stream, filters, chain, stages, blockSize, listener, metrics, failOn))
                    .doOnNext(r -> metrics.written(r.bytes()));
        });
    }

    /**
     * The codec stages this process knows (with those of the plugin directory): a receiving
     * source resolves the chain its sender announced against them.
     */
    public CodecRegistry codecs() {
        return codecs;
    }

    /** What makes the run fail when it emits (a runner's abort), or null: a relay's forward heeds it too. */
    Mono<? extends Throwable> failOn() {
        return failOn;
    }

    /** Where the source reports events such as the address it listens on. */
    public PipelineListener listener() {
        return listener;
    }
}
