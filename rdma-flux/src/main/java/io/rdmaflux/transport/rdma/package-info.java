/**
 * The RDMA transport on DiSNI verbs (InfiniBand, RoCE): registered send and receive rings,
 * receives posted before the credits that allow them are granted, a completion loop and a
 * poster thread per connection. Use it through {@code TransportKind.RDMA} or
 * {@link io.rdmaflux.channel.Transports}; {@link io.rdmaflux.transport.rdma.RdmaNative} says
 * whether this host can run it and why not. docs/rdma.md describes the layout and limits.
 */
package io.rdmaflux.transport.rdma;
