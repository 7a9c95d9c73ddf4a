package io.rdmaflux.channel;

/**
 * A stream's counters while it runs, as a {@link StreamObserver} sees it; each read is a
 * current value, safe from any thread.
 */
public interface LiveStream {

    /** Which end of the stream this side is. */
    StreamOutcome.Side side();

    /** The other side, for messages. */
    String peer();

    /** Stream bytes sent (on a sender) or received (on a receiver) so far. */
    long bytes();

    /**
     * DATA frames that have used a credit whose return the sender has not received yet: on a
     * sender, the credits it has spent and not got back; on a receiver, the frames it took
     * whose credit it has not sent back. At most the receiver's ring size.
     */
    int creditsInFlight();
}
