/**
 * The transport SPI under the channel: a {@link io.rdmaflux.transport.Transport} connects or
 * listens and moves whole frames over a {@link io.rdmaflux.transport.FrameConnection} into
 * receive slots it posted. Applications pick a transport by
 * {@link io.rdmaflux.transport.TransportKind} through the channel's builders; implementing one
 * (the TCP and RDMA transports are in the subpackages) is the only reason to use these types
 * directly. A transport becomes selectable by name through a
 * {@link io.rdmaflux.transport.TransportProvider} listed in
 * {@code META-INF/services/io.rdmaflux.transport.TransportProvider}
 * ({@link io.rdmaflux.transport.TransportProviders} finds them).
 */
package io.rdmaflux.transport;
