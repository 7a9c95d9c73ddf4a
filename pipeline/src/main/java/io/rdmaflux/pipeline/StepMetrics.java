package io.rdmaflux.pipeline;

import java.time.Duration;

/**
 * What one step of a pipeline (its source, a filter, a stage, its sink) has moved, at one moment.
 *
 * @param kind     source, filter, stage or sink
 * @param name     the source's, filter's or sink's description, or the stage's codec spec ({@code zstd:1;level=3})
 * @param bytesIn  bytes that went into the step (for a receiving source: bytes received on the
 *                 wire; for other sources: the bytes read)
 * @param bytesOut bytes that came out (for a sink: the bytes it wrote, or handed to the wire)
 */
public record StepMetrics(Kind kind, String name, long bytesIn, long bytesOut) {

    /** Which part of the pipeline a step is. */
    public enum Kind {
        SOURCE, FILTER, STAGE, SINK
    }

    /** bytesOut / bytesIn (a compression ratio for zstd); 1 when nothing went in. */
    public double ratio() {
        return bytesIn == 0 ? 1.0 : (double) bytesOut / bytesIn;
    }

    /** Bytes in per second over {@code elapsed}. */
    public double rate(Duration elapsed) {
        double s = Math.max(1e-9, elapsed.toNanos() / 1e9);
        return bytesIn / s;
    }
}
