package io.rdmaflux.channel;

/**
 * Told of each stream of a {@link FluxSender} or {@link FluxReceiver} as it starts and ends:
 * the hook for a service's logs, traces and metrics ({@code io.rdmaflux.metrics.ChannelMetrics}
 * is one). Set with {@code observe(...)} on either side.
 *
 * <p>Both methods are called on the channel's own threads (an event loop, a timer) and must
 * not block; what they throw is logged and otherwise ignored, so an observer cannot break a
 * stream.
 */
public interface StreamObserver {

    /** An observer that does nothing: the default. */
    StreamObserver NONE = new StreamObserver() { };

    /**
     * A stream began: the peer authenticated (on a receiver, its METADATA arrived and the
     * handler was called). {@code stream} may be read from any thread until it ends, and after.
     */
    default void onStart(LiveStream stream) {
    }

    /**
     * A stream ended. Called once per connection, started or not: a sender that could not
     * connect, or a peer that failed its handshake, ends without a start, and then
     * {@code outcome.started()} is false.
     */
    default void onEnd(LiveStream stream, StreamOutcome outcome) {
    }
}
