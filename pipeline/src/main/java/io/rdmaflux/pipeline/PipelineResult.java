package io.rdmaflux.pipeline;

import io.rdmaflux.connector.SinkResult;
import java.time.Duration;
import java.util.List;

/**
 * What a pipeline did, once its sink succeeded.
 *
 * @param sink     the sink's own result: bytes written and where (a path, standard output,
 *                 the receiver's address)
 * @param bytesIn  payload bytes the source produced
 * @param bytesOut bytes the sink was given (after the filters and stages)
 * @param duration from the moment data started to flow to the sink's success
 * @param steps    per step: source, each filter, each stage, sink
 */
public record PipelineResult(SinkResult sink, long bytesIn, long bytesOut, Duration duration, List<StepMetrics> steps) {

    public PipelineResult {
        steps = List.copyOf(steps);
    }

    /** Payload bytes per second. */
    public double bytesPerSecond() {
        return bytesIn / Math.max(1e-9, duration.toNanos() / 1e9);
    }
}
