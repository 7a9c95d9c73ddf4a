/**
 * Leased buffers: a {@link io.rdmaflux.buffer.Chunk} is a buffer with exactly one owner, who
 * releases it once; {@link io.rdmaflux.buffer.BufferPool} hands out a bounded number of them,
 * so a consumer that holds chunks slows its producer instead of growing memory. Part of the
 * API and of the connector and codec SPIs.
 */
package io.rdmaflux.buffer;
