package io.rdmaflux.pipeline;

import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.connector.Filter;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * A source, zero or more filters, zero or more codec stages, a sink: one stream from one end to
 * the other. Immutable;
 * each method returns a configured copy, and nothing happens until the Mono {@link #run()}
 * returns is subscribed.
 *
 * <pre>{@code
 * // Compress a file into another:
 * Mono<PipelineResult> done = Pipeline.from(FileSource.of(in))
 *         .via(ZstdStage.spec(3))
 *         .to(FileSink.of(out))
 *         .run();
 *
 * // Send it compressed and encrypted; the receiver undoes both (it reads the chain from the stream):
 * Pipeline.from(FileSource.of(in)).via(ZstdStage.spec(1), AesGcmStage.spec())
 *         .to(SendSink.create("backup", 7691, key)).run();
 * Pipeline.from(ReceiveSource.create(7691, key)).to(FileSink.of(out)).run();
 * }</pre>
 *
 * <p><b>Filters</b> ({@link #through}) turn the source's stream into another, as a command in
 * the middle of a shell pipe does ({@link io.rdmaflux.connector.CommandFilter}); they run once
 * per run, on the plain stream, before the stages. The stream they produce has no size known
 * in advance. A filter that ends its output before reading all of its input (a command that
 * exits with status 0 early) ends the run successfully; the source is cancelled, and a
 * receiving source tells its sender that the receiver stopped reading.
 *
 * <p><b>Stages and keys.</b> Stages encode, in order. A plain sink (file, standard output)
 * gets them applied with a keyless {@link CodecContext}; the {@link SendSink} applies them
 * inside the channel, per session, with a context derived from the shared key and that
 * session's nonces, and announces them in the stream metadata so that the receiver decodes
 * them. A stage that needs a key (aes-256-gcm) has no sound key without a session, so a
 * pipeline with one and a sink that provides none fails before it starts.
 *
 * <p><b>Outcome.</b> The Mono completes with a {@link PipelineResult} when the sink has
 * succeeded (for a channel: when the receiver confirmed every byte). It fails with the first
 * failure of any step. Cancelling it stops every step: the source closes what it opened, a
 * sending channel tells its peer, and the sink removes partial output.
 */
public final class Pipeline {

    /** The block size stages use when the sink does not frame the stream. */
    static final int DEFAULT_FRAME = 1 << 20;

    private final PipelineSource source;
    private final List<Filter> filters;
    private final List<CodecSpec> stages;
    private final PipelineSink sink;
    private final CodecRegistry codecs;
    private final PipelineListener listener;
    private final Mono<? extends Throwable> failOn;

    private Pipeline(PipelineSource source, List<Filter> filters, List<CodecSpec> stages, PipelineSink sink,
                     CodecRegistry codecs, PipelineListener listener, Mono<? extends Throwable> failOn) {
        this.source = source;
        this.filters = List.copyOf(filters);
        this.stages = List.copyOf(stages);
        this.sink = sink;
        this.codecs = codecs;
        this.listener = listener;
        this.failOn = failOn;
    }

    /** A pipeline that starts at {@code source}. */
    public static Pipeline from(PipelineSource source) {
        return new Pipeline(Objects.requireNonNull(source, "source"), List.of(), List.of(), null,
                CodecRegistry.defaultRegistry(), PipelineListener.NONE, null);
    }

    /** A pipeline that starts at a plain source (file, standard input, command...). */
    public static Pipeline from(Source source) {
        return from(PipelineSource.of(source));
    }

    /** Adds filters, applied in order to the source's stream (before the stages) after those already added. */
    public Pipeline through(Filter... filters) {
        List<Filter> f = new ArrayList<>(this.filters);
        for (Filter filter : filters) {
            f.add(Objects.requireNonNull(filter, "filter"));
        }
        return new Pipeline(source, f, stages, sink, codecs, listener, failOn);
    }

    /** Adds stages, applied in order after those already added. */
    public Pipeline via(CodecSpec... specs) {
        List<CodecSpec> s = new ArrayList<>(stages);
        for (CodecSpec spec : specs) {
            s.add(Objects.requireNonNull(spec, "spec"));
        }
        return new Pipeline(source, filters, s, sink, codecs, listener, failOn);
    }

    /** Adds the stages of {@code chain}. */
    public Pipeline via(CodecChain chain) {
        return via(chain.specs().toArray(CodecSpec[]::new));
    }

    /** Ends the pipeline at {@code sink}. */
    public Pipeline to(PipelineSink sink) {
        return new Pipeline(source, filters, stages, Objects.requireNonNull(sink, "sink"), codecs, listener, failOn);
    }

    /** Ends the pipeline at a plain sink (file, standard output, command...). */
    public Pipeline to(Sink sink) {
        return to(PipelineSink.of(sink));
    }

    /**
     * Where stage names are resolved, also for a receiving source's announced chain (default:
     * {@link CodecRegistry#defaultRegistry()}; plugin directories bring their own).
     */
    public Pipeline codecs(CodecRegistry codecs) {
        return new Pipeline(source, filters, stages, sink, Objects.requireNonNull(codecs, "codecs"), listener, failOn);
    }

    /** Who hears about the run's events (listening address, start, progress). */
    public Pipeline listener(PipelineListener listener) {
        return new Pipeline(source, filters, stages, sink, codecs, Objects.requireNonNull(listener, "listener"), failOn);
    }

    /**
     * Makes the run fail with the error {@code failure} emits, when it emits: a stream in flight
     * fails (the sink removes its partial output, a channel tells its peer why), a source still
     * waiting (a receiver without a sender yet) stops. Unlike cancelling the run's Mono, which
     * is silent, this ends it as a failure with that error, passed on to peers: what a runner
     * needs when its controller goes away ({@code rdflux agent}). {@code failure} is subscribed
     * more than once; give a hot one (a {@code Sinks.One}'s Mono).
     */
    public Pipeline failOn(Mono<? extends Throwable> failure) {
        return new Pipeline(source, filters, stages, sink, codecs, listener, Objects.requireNonNull(failure, "failure"));
    }

    /**
     * The stages as a chain resolved against the registry.
     *
     * @throws io.rdmaflux.error.RdmaFluxException (CODEC) for an unknown stage or a bad parameter
     */
    public CodecChain chain() {
        return CodecChain.of(stages, codecs);
    }

    /**
     * The chunk size the source should read: the stages' block size, so that each block is
     * encoded as one record and each record fits one of the sink's frames. Sources that read
     * other sizes still work; their chunks are cut to this size (costing some records).
     */
    public int blockSize() {
        return blockSize(chain(), sink == null ? 0 : sink.frameSize());
    }

    /** The block size for {@code chain} before a sink framing at {@code frameSize} (0: not framed). */
    public static int blockSize(CodecChain chain, int frameSize) {
        int frame = frameSize > 0 ? frameSize : DEFAULT_FRAME;
        return chain.isEmpty() ? frame : chain.blockSizeFor(frame);
    }

    /**
     * The line that refuses a stage needing a key before a sink without sessions: one wording
     * for the Java API and the configuration loader.
     */
    public static String sessionKeyRequired(String stage, String sink) {
        return stage + " derives its key from a channel session, so it needs a sink that sends over the channel"
                + " (type: send), not " + sink;
    }

    /** "SOURCE -> FILTER -> ... -> STAGE -> ... -> SINK", for messages. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(source.describe());
        filters.forEach(f -> parts.add(f.describe()));
        stages.forEach(s -> parts.add(s.format()));
        parts.add(sink == null ? "(no sink)" : sink.describe());
        return parts.stream().collect(Collectors.joining(" -> "));
    }

    /** Runs the pipeline; see the class comment. Each subscription is a run of its own. */
    public Mono<PipelineResult> run() {
        return Mono.defer(() -> {
            if (sink == null) {
                return Mono.error(new IllegalStateException("the pipeline has no sink: call to(...) before run()"));
            }
            CodecChain chain = chain();
            if (!sink.providesSessionKey()) {
                for (CodecSpec spec : chain.specs()) {
                    CodecStage stage = codecs.resolve(spec);
                    if (stage.requiresKey()) {
                        return Mono.error(new IllegalArgumentException(sessionKeyRequired(spec.name(), sink.describe())));
                    }
                }
            }
            PipelineMetrics metrics = new PipelineMetrics(source.describe(), filters.stream().map(Filter::describe).toList(),
                    chain.specs().stream().map(CodecSpec::format).toList(), sink.describe());
            // Sized for the sink's frames: the chain string a channel sink announces then bounds
            // what each record may decode to (zstd's block), which the receiver holds it to.
            int frame = sink.frameSize() > 0 ? sink.frameSize() : DEFAULT_FRAME;
            Downstream downstream = new Downstream(filters, chain.forFrameSize(frame), blockSize(chain, sink.frameSize()),
                    codecs, sink, listener, metrics, failOn);
            Mono<SinkResult> work = source.open(downstream);
            if (failOn != null) {
                // Once data flows, the stream itself fails (Upstream.data); before that, the wait ends here.
                work = Mono.firstWithSignal(work, failOn.flatMap(e -> metrics.started() ? Mono.<SinkResult>never()
                        : Mono.error(e)).switchIfEmpty(Mono.never()));
            }
            return work
                    .switchIfEmpty(Mono.error(() -> new IllegalStateException(source.describe()
                            + " ended without passing a stream on")))
                    .map(r -> {
                        metrics.end();
                        return new PipelineResult(r, metrics.sourceBytes(), metrics.sinkBytes(), metrics.elapsed(),
                                metrics.steps());
                    })
                    .doFinally(s -> metrics.end());
        });
    }

    @Override
    public String toString() {
        return "Pipeline[" + describe() + "]";
    }
}
