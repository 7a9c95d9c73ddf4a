package io.rdmaflux.pipeline;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.ChunkFlux;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.connector.Filter;
import io.rdmaflux.protocol.StreamMetadata;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The stream as a {@link PipelineSink} sees it: the source's data with the pipeline's filters
 * and stages still to apply, so that a sink with a session (the channel) can apply the stages
 * with that session's keys, and announce them.
 */
public final class Upstream {

    private final SourceStream stream;
    private final List<Filter> filters;
    private final CodecChain chain;
    private final List<CodecStage> stages;
    private final int blockSize;
    private final PipelineListener listener;
    private final PipelineMetrics metrics;
    private final Mono<? extends Throwable> failOn;
    /** A {@link #branch}'s stream, already through the filters; null for the pipeline's own. */
    private final Flux<Chunk> plain;
    private final AtomicBoolean taken = new AtomicBoolean();

    Upstream(SourceStream stream, List<Filter> filters, CodecChain chain, List<CodecStage> stages, int blockSize,
             PipelineListener listener, PipelineMetrics metrics, Mono<? extends Throwable> failOn) {
        this(stream, filters, chain, stages, blockSize, listener, metrics, failOn, null);
    }

    private Upstream(SourceStream stream, List<Filter> filters, CodecChain chain, List<CodecStage> stages,
                     int blockSize, PipelineListener listener, PipelineMetrics metrics,
                     Mono<? extends Throwable> failOn, Flux<Chunk> plain) {
        this.stream = stream;
        this.filters = filters;
        this.chain = chain;
        this.stages = stages;
        this.blockSize = blockSize;
        this.listener = listener;
        this.metrics = metrics;
        this.failOn = failOn;
        this.plain = plain;
    }

    /**
     * The source's metadata (name, size), without any codec chain: what a plain sink may use.
     * After filters the size is not known in advance, so it is left out.
     */
    public StreamMetadata metadata() {
        StreamMetadata m = stream.metadata().with(StreamMetadata.CODECS, null);
        return filters.isEmpty() ? m : m.with(StreamMetadata.SIZE, null);
    }

    /**
     * The metadata to send along with the encoded stream: {@link #metadata()} with the
     * pipeline's chain as {@link StreamMetadata#CODECS}, so the receiver can undo it.
     */
    public StreamMetadata announcedMetadata() {
        StreamMetadata m = metadata();
        return chain.isEmpty() ? m : m.with(StreamMetadata.CODECS, chain.format());
    }

    /** Who hears the run's events: a sink that writes several files reports each ({@link PipelineListener#onFile}). */
    public PipelineListener listener() {
        return listener;
    }

    /** The pipeline's stages, in order. */
    public CodecChain chain() {
        return chain;
    }

    /**
     * The stream through the filters, encoded by the stages with {@code context} (its block
     * size is set by the pipeline to fit the sink's frames). Marks the start of the run. Call
     * once; the chunks
     * follow the {@link io.rdmaflux.connector.Source} ownership rule.
     */
    public Flux<Chunk> data(CodecContext context) {
        if (!taken.compareAndSet(false, true)) {
            return Flux.error(new IllegalStateException("the pipeline's data was already taken"));
        }
        return encoded(plain != null ? plain : throughFilters(), context);
    }

    /**
     * The stream through the filters only, for a sink that encodes it once per destination
     * ({@link SendSinks}, each destination then gets a {@link #branch}). Call once, instead of
     * {@link #data}.
     */
    Flux<Chunk> filtered() {
        if (plain != null || !taken.compareAndSet(false, true)) {
            return Flux.error(new IllegalStateException("the pipeline's data was already taken"));
        }
        return throughFilters();
    }

    private Flux<Chunk> throughFilters() {
        metrics.start();
        listener.onStart(metrics);
        // hide(): without it a synchronous source (Flux.generate) fuses into the stages'
        // concatMapIterable, whose cancel drains a fused queue by polling it: an endless
        // generator is then polled forever on the cancelling thread.
        Flux<Chunk> f = stream.data().hide().doOnNext(c -> {
            int n = c.remaining();
            metrics.add(0, n);
            listener.onSourceBytes(n);
        });
        if (failOn != null) {
            // Before the filters: a command sees the failure, never an end of its input.
            f = failingOn(f, failOn);
        }
        for (int i = 0; i < filters.size(); i++) {
            int boundary = i + 1;
            f = filters.get(i).apply(f).doOnNext(c -> metrics.add(boundary, c.remaining()));
        }
        return f;
    }

    /**
     * One destination's share of {@link #filtered}'s stream ({@code plain}): an Upstream with the
     * same metadata and stages, whose {@link #data} encodes {@code plain} with that destination's
     * session context. {@code measured}: its stage bytes count in the pipeline's metrics (one
     * destination's only, so that the steps show one copy's work).
     */
    Upstream branch(Flux<Chunk> plain, boolean measured) {
        PipelineMetrics m = measured ? metrics
                : new PipelineMetrics("branch", filters.stream().map(Filter::describe).toList(), chain.specs().stream().map(CodecSpec::format).toList(), "");
        return new Upstream(stream, filters, chain, stages, blockSize, listener, m, failOn, plain);
    }

    /** {@code f} encoded by the stages with {@code context}. */
    private Flux<Chunk> encoded(Flux<Chunk> f, CodecContext context) {
        if (stages.isEmpty()) {
            return f;
        }
        CodecContext ctx = context.withBlockSize(blockSize);
        f = ChunkFlux.split(f, blockSize);
        List<CodecSpec> specs = chain.specs();
        for (int i = 0; i < stages.size(); i++) {
            int boundary = filters.size() + i + 1;
            f = stages.get(i).encoder(specs.get(i), ctx).apply(f).doOnNext(c -> metrics.add(boundary, c.remaining()));
        }
        return f.doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    /**
     * {@code data}, failing with {@code failure}'s error when it emits: the source is cancelled
     * (it closes what it opened) and the error, never an early end, goes on to the sink.
     */
    private static Flux<Chunk> failingOn(Flux<Chunk> data, Mono<? extends Throwable> failure) {
        AtomicReference<Throwable> why = new AtomicReference<>();
        // concatWith(never): a failure Mono that completes empty must not end the data early.
        return data.takeUntilOther(failure.doOnNext(why::set).concatWith(Mono.never()))
                .concatWith(Mono.defer(() -> why.get() == null ? Mono.empty() : Mono.error(why.get())));
    }

    /** The stages of {@code chain}, resolved one by one so that each can be measured. */
    static List<CodecStage> resolve(CodecChain chain, CodecRegistry codecs) {
        return chain.specs().stream().map(codecs::resolve).toList();
    }
}
