/**
 * Internal: not part of the API, left out of the javadoc, and free to change with the protocol
 * version. The channel engine's wire internals: the handshake ({@code Hello},
 * {@code Authenticator}, {@code SessionKeys}), sealed control frames ({@code FrameSeal}), the
 * layouts of the small control frames ({@code ControlFrames}) and the stream's CRC32C
 * ({@code StreamChecksum}). Public only because {@code io.rdmaflux.channel} and rdma-flux's
 * tests use them from other packages; cli's {@code LayeringTest} fails the build if another
 * module's main code uses them.
 */
package io.rdmaflux.internal.protocol;
