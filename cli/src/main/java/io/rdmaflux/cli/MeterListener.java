package io.rdmaflux.cli;

import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineMetrics;

/**
 * Feeds a {@link Meter} from a pipeline run, for the tools' progress line and final report:
 * the clock restarts when data starts to flow (not while waiting for the peer), the size the
 * source announced becomes the total, and the source's bytes are counted. Listening addresses
 * are left to each tool, which says them its own way.
 */
class MeterListener implements PipelineListener {

    private final Meter meter;
    private final boolean progress;
    private volatile PipelineMetrics metrics;

    /** @param progress whether to draw the progress line once data flows */
    MeterListener(Meter meter, boolean progress) {
        this.meter = meter;
        this.progress = progress;
    }

    @Override
    public void onStart(PipelineMetrics metrics) {
        this.metrics = metrics;
        meter.streamStarted();
        metrics.expectedBytes().ifPresent(meter::total);
        if (progress) {
            meter.startProgress();
        }
    }

    @Override
    public void onSourceBytes(long bytes) {
        meter.add(bytes);
    }

    /** The run's live metrics, once data started to flow; null before. */
    PipelineMetrics metrics() {
        return metrics;
    }
}
