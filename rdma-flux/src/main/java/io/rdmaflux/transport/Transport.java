package io.rdmaflux.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;

/**
 * A way to carry frames between two hosts. The protocol engine is the same over every
 * transport; a transport only moves frames and manages its slots.
 */
public interface Transport {

    /** A short lower-case name, for messages: "tcp", "rdma". */
    String name();

    /** Null when this transport can be used here, otherwise a one-line reason why not. */
    String unavailableReason();

    /** Connects to a listening peer; fails with a {@code RdmaFluxException} of code CONNECT. */
    Mono<FrameConnection> connect(InetSocketAddress address, TransportOptions options);

    /**
     * Listens on {@code address}; each accepted connection is given to {@code acceptor}, which
     * must call {@link FrameConnection#start} on it.
     */
    Mono<TransportServer> listen(InetSocketAddress address, TransportOptions options,
                                 Consumer<FrameConnection> acceptor);

    /**
     * Closes this transport's connections and listeners that are still open and stops the
     * threads serving them, waiting at most {@code timeout}; for a process about to exit (see
     * {@code Transports.shutdown}). Later use starts afresh. The default has nothing to stop.
     */
    default void shutdown(Duration timeout) {
    }
}
