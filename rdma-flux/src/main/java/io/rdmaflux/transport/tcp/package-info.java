/**
 * The TCP transport on reactor-netty, with its own event loops: the same frames and credits
 * as RDMA, read straight into the posted receive slots. Use it through
 * {@code TransportKind.TCP} or {@link io.rdmaflux.channel.Transports}; the classes here other
 * than {@link io.rdmaflux.transport.tcp.TcpTransport} are package-private.
 */
package io.rdmaflux.transport.tcp;
