package io.rdmaflux.transport;

import java.net.InetSocketAddress;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** A listening endpoint of a transport; disposing it stops accepting and frees the port. */
public interface TransportServer extends Disposable {

    /** The address actually bound (the port is resolved when 0 was asked for). */
    InetSocketAddress address();

    /** Which transport listens here. */
    String name();

    /**
     * Completes once this server has been disposed and has released its port (and whatever
     * else it holds for listening); never fails. Subscribing does not dispose it.
     */
    Mono<Void> onDispose();
}
