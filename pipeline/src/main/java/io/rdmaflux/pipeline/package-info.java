/**
 * Pipelines: one stream from a source, through filters and codec stages, to a sink, run with
 * backpressure end to end. {@link io.rdmaflux.pipeline.Pipeline} is the immutable description and
 * its runner; {@link io.rdmaflux.pipeline.PipelineSource} and {@link io.rdmaflux.pipeline.PipelineSink}
 * adapt the connectors' plain sources and sinks, and the channel's two ends
 * ({@link io.rdmaflux.pipeline.SendSink}, {@link io.rdmaflux.pipeline.ReceiveSource}) are a sink and a
 * source like any other. {@link io.rdmaflux.pipeline.PipelineListener} and
 * {@link io.rdmaflux.pipeline.PipelineMetrics} say what a run is doing, for progress lines and
 * coordinators. Configuration files and plugins live in the subpackages; this package knows
 * neither.
 */
package io.rdmaflux.pipeline;
