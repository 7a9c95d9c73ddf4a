/**
 * The public API: a stream of bytes between two machines as a Reactor {@code Flux}.
 *
 * <p>{@link io.rdmaflux.channel.FluxSender} sends a {@code Publisher<ByteBuffer>} (or
 * {@code Chunk}s) and completes only when the receiver confirmed every byte;
 * {@link io.rdmaflux.channel.FluxReceiver} binds a {@link io.rdmaflux.channel.ReceiverServer}
 * (or, with {@code bindOne()}, a {@link io.rdmaflux.channel.SingleStreamServer} for one
 * stream) and hands each authenticated stream to a handler as an
 * {@link io.rdmaflux.channel.InboundStream}. Both builders are immutable: every setter returns
 * a new builder and checks its value at once. {@link io.rdmaflux.channel.ChannelOptions} sizes
 * frames, credits and timeouts; {@link io.rdmaflux.channel.Transports} chooses RDMA or TCP and
 * releases their per-JVM resources. The sessions behind them (credits, heartbeats, the
 * handshake) are package-private.
 */
package io.rdmaflux.channel;
