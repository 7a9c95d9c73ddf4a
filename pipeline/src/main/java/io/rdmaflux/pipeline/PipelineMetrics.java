package io.rdmaflux.pipeline;

import io.rdmaflux.protocol.StreamMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The live counters of one pipeline run: bytes at every boundary between steps, when data
 * started to flow, and the size announced in advance when there is one. Thread-safe; read it
 * at any time (a progress line), or take {@link #steps()} for a snapshot.
 *
 * <p>Counting costs one atomic add per chunk and boundary; rates are averages over the run,
 * since the steps overlap in time (a stage's own busy time is not measured).
 */
public final class PipelineMetrics {

    private final String source;
    private final List<String> filters;
    private final List<String> stages;
    private final String sink;
    /** [0]: out of the source; [i + 1]: out of filter i, then of each stage; the last: into the sink. */
    private final AtomicLongArray boundaries;
    private volatile LongSupplier received;
    private volatile StreamMetadata metadata = StreamMetadata.empty();
    private volatile long expected = -1;
    private volatile long written = -1;
    private volatile long startNanos;
    private volatile long endNanos;

    PipelineMetrics(String source, List<String> filters, List<String> stages, String sink) {
        this.source = source;
        this.filters = List.copyOf(filters);
        this.stages = List.copyOf(stages);
        this.sink = sink;
        this.boundaries = new AtomicLongArray(filters.size() + stages.size() + 1);
    }

    /** Payload bytes the source has produced so far. */
    public long sourceBytes() {
        return boundaries.get(0);
    }

    /** Bytes handed to the sink so far (after the filters and stages). */
    public long sinkBytes() {
        return boundaries.get(boundaries.length() - 1);
    }

    /** The stream's size as announced by the source (a file's size), when known. */
    public OptionalLong expectedBytes() {
        long e = expected;
        return e >= 0 ? OptionalLong.of(e) : OptionalLong.empty();
    }

    /**
     * What the source said about the stream (name, size, and for a directory tree the totals it
     * counted, see {@code TreeCopySource}); empty until the stream is there.
     */
    public StreamMetadata metadata() {
        return metadata;
    }

    /** Whether data has started to flow. */
    public boolean started() {
        return startNanos != 0;
    }

    /** Time since data started to flow, up to the end of the run; zero before. */
    public Duration elapsed() {
        long s = startNanos;
        if (s == 0) {
            return Duration.ZERO;
        }
        long e = endNanos;
        return Duration.ofNanos((e != 0 ? e : System.nanoTime()) - s);
    }

    /** A snapshot of every step: the source, each filter, each stage, the sink. */
    public List<StepMetrics> steps() {
        List<StepMetrics> out = new ArrayList<>();
        LongSupplier r = received;
        long produced = boundaries.get(0);
        out.add(new StepMetrics(StepMetrics.Kind.SOURCE, source, r != null ? r.getAsLong() : produced, produced));
        for (int i = 0; i < filters.size(); i++) {
            out.add(new StepMetrics(StepMetrics.Kind.FILTER, filters.get(i), boundaries.get(i), boundaries.get(i + 1)));
        }
        for (int i = filters.size(); i < filters.size() + stages.size(); i++) {
            out.add(new StepMetrics(StepMetrics.Kind.STAGE, stages.get(i - filters.size()), boundaries.get(i),
                    boundaries.get(i + 1)));
        }
        long in = sinkBytes();
        long w = written;
        out.add(new StepMetrics(StepMetrics.Kind.SINK, sink, in, w >= 0 ? w : in));
        return out;
    }

    // The runner's side.

    void add(int boundary, long bytes) {
        boundaries.addAndGet(boundary, bytes);
    }

    void stream(SourceStream stream) {
        received = stream.received();
        metadata = stream.metadata();
        expected = stream.metadata().size();
    }

    void start() {
        if (startNanos == 0) {
            startNanos = System.nanoTime();
        }
    }

    void written(long bytes) {
        written = bytes;
    }

    void end() {
        if (endNanos == 0) {
            endNanos = System.nanoTime();
        }
    }
}
