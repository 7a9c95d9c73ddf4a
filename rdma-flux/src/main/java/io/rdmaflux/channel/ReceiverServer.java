package io.rdmaflux.channel;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A bound {@link FluxReceiver}: accepts streams until disposed. {@link #dispose()} stops it
 * listening at once, without waiting; streams it already accepted go on to their end.
 * {@link #onDispose()} tells when the ports are released, {@link #disposeNow(Duration)} does
 * both and waits, as reactor-netty's {@code DisposableServer} does;
 * {@link #disposeGracefully(Duration)} also lets the streams in flight finish, within a bound.
 */
public interface ReceiverServer extends Disposable {

    /** The address bound (with the actual port when 0 was asked for). */
    InetSocketAddress address();

    /** The names of the transports listening ("rdma", "tcp"), in order of preference. */
    List<String> transports();

    /**
     * Completes once the server has been disposed (by {@link #dispose()}, or by the end of a
     * {@link SingleStreamServer}'s stream) and every transport has released its port; never
     * fails. Over RDMA the listener's event channel also serves the connections it accepted, so
     * it is released after them. Subscribing does not dispose the server.
     */
    Mono<Void> onDispose();

    /**
     * Disposes the server and waits until {@link #onDispose()} completes, at most
     * {@code timeout}. Blocks: call it from a thread that may block, not from an event loop.
     *
     * @throws IllegalStateException when the ports are not released within {@code timeout}
     * @throws IllegalArgumentException when {@code timeout} is null or not positive
     */
    default void disposeNow(Duration timeout) {
        Check.positive(timeout, "timeout");
        dispose();
        onDispose().timeout(timeout, Mono.error(() -> new IllegalStateException("receiver on " + address()
                + " did not stop within " + timeout.toMillis() + " ms"))).block();
    }

    /**
     * Disposes the server gracefully: it stops listening at once, refuses connections still in
     * their handshake ({@code BUSY}, "receiver shutting down"), lets the streams in flight
     * finish for up to {@code timeout}, then cancels those left (their senders fail with
     * {@code CANCELLED}, "receiver shut down before the stream ended"). The returned Mono
     * starts it when subscribed and completes once every stream has ended and the ports are
     * released; it never fails. Does not block: fit for an event loop.
     *
     * <p>This default (for servers that track no streams) only disposes and awaits
     * {@link #onDispose()}.
     *
     * @throws IllegalArgumentException when {@code timeout} is null or not positive
     */
    default Mono<Void> disposeGracefully(Duration timeout) {
        Check.positive(timeout, "timeout");
        return Mono.fromRunnable(this::dispose).then(onDispose());
    }

    /** {@link #disposeNow(Duration)} with 3 seconds, reactor-netty's default. */
    default void disposeNow() {
        disposeNow(Duration.ofSeconds(3));
    }
}
