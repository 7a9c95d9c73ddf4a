/**
 * Small programs that use rdma-flux as a library: a pipeline built in code, codec operators on a
 * plain {@code Flux}, a tree copy, a storage service
 * with many streams under a budget, and plugins (a SHA-256 sink and a CRC32C stage) of the kind a
 * plugin jar holds. They compile with the build, and its tests run the pipeline, tree copy, storage
 * service and plugin samples.
 */
package io.rdmaflux.samples;
