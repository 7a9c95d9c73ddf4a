/**
 * The wire protocol (docs/protocol.md): frame types, the handshake and session keys, sealed
 * control frames, stream metadata and checksums, and the error codes a peer may report. Its
 * types are public because the engine, the codecs and the tools share them; applications need
 * only {@link io.rdmaflux.protocol.StreamMetadata}, {@link io.rdmaflux.error.ErrorCode} and
 * {@link io.rdmaflux.error.RdmaFluxException}. The rest is internal and changes with the
 * protocol version.
 */
package io.rdmaflux.protocol;
