/**
 * Codec stages: named, versioned transformations of a chunk stream, applied in order by the
 * sender and inverted by the receiver ({@code docs/codecs.md}).
 *
 * <p>The SPI is {@link io.rdmaflux.codec.CodecStage}, found with {@link java.util.ServiceLoader}
 * through {@link io.rdmaflux.codec.CodecRegistry}; {@link io.rdmaflux.codec.CodecChain} parses
 * and applies the chain string that travels in the stream metadata, one
 * {@link io.rdmaflux.codec.CodecSpec} per stage, with a {@link io.rdmaflux.codec.CodecContext}
 * (key, salt, workers, block size, allocator). The built-in stages are
 * {@link io.rdmaflux.codec.ZstdStage} (parallel zstd) and {@link io.rdmaflux.codec.AesGcmStage}
 * (AES-256-GCM); {@link io.rdmaflux.codec.Codecs} offers them as Reactor operators. Stage
 * authors build on {@link io.rdmaflux.codec.ChunkFlux} (split, ordered parallel map) and
 * {@link io.rdmaflux.codec.RecordAssembler} (records across the channel's re-cutting).
 *
 * <p>Every stage keeps the contract written on {@link io.rdmaflux.codec.CodecStage}: order, each
 * input chunk released exactly once (also on cancel and error), bounded memory and demand, and a
 * one-line CODEC error for bad input. The test class {@code CodecStageContract} (in this module's
 * test jar) checks it; each stage's test extends it.
 */
package io.rdmaflux.codec;
