/**
 * Micrometer meters for the channel ({@link io.rdmaflux.metrics.ChannelMetrics}). The only
 * package that uses Micrometer, an optional dependency: nothing else in the library refers to
 * it, so an application without micrometer-core on its class path loses nothing but this.
 */
package io.rdmaflux.metrics;
