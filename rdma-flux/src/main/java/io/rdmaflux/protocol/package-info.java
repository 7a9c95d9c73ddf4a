/**
 * The wire protocol's public vocabulary (docs/protocol.md): {@link io.rdmaflux.protocol.FrameType}
 * and {@link io.rdmaflux.protocol.ProtocolVersion}, which the transport SPI speaks in, and
 * {@link io.rdmaflux.protocol.StreamMetadata}, which applications send and receive. How frames
 * are laid out, sealed and authenticated is the engine's business, in
 * {@code io.rdmaflux.internal.protocol}; failures are in {@link io.rdmaflux.error}.
 */
package io.rdmaflux.protocol;
