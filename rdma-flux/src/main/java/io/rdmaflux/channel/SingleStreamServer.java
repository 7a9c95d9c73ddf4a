package io.rdmaflux.channel;

import reactor.core.publisher.Mono;

/**
 * A bound {@link FluxReceiver} that serves exactly one stream ({@link FluxReceiver#bindOne()}).
 * Its {@link #address()} is known as soon as it is bound, so a caller that asked for port 0 can
 * tell the sender where to connect before the stream arrives.
 */
public interface SingleStreamServer extends ReceiverServer {

    /**
     * Completes when the one stream was received whole and its handler finished, or fails with
     * its error; the server is disposed then. Cancelling it cancels the stream in progress (the
     * sender gets ERROR(CANCELLED), the handler's data ends with that error) and disposes the
     * server. Subscribe once.
     */
    Mono<Void> outcome();
}
