package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.time.Duration;

/**
 * How one stream ended, on one side.
 *
 * @param side     which end of the stream this side is
 * @param result   succeeded, stopped by the receiver on purpose, or failed
 * @param peer     the other side, for messages
 * @param started  whether the stream began (see {@link StreamObserver#onStart}); false for a
 *                 connection that failed before (no connection, a failed handshake, refused)
 * @param bytes    stream bytes sent or received
 * @param duration from the connection (on a sender: the first connect attempt) to the end
 * @param failure  why it did not succeed: for {@link Result#FAILED}, and on a sender for
 *                 {@link Result#STOPPED} (the receiver's word); null otherwise
 */
public record StreamOutcome(Side side, Result result, String peer, boolean started, long bytes, Duration duration,
                            RdmaFluxException failure) {

    /** Which end of a stream. */
    public enum Side { SENDER, RECEIVER }

    /** How a stream ended. */
    public enum Result {
        /** Whole, verified, and the receiving handler completed. */
        SUCCEEDED,
        /**
         * The receiver's handler completed before the end of the stream, having taken what it
         * needed: a success on the receiver; on the sender, whose {@code send} fails with
         * {@link ErrorCode#STOPPED}, this result too.
         */
        STOPPED,
        /** Any other end; {@link #failure()} says why. */
        FAILED
    }

    /** The failure's code; {@link ErrorCode#STOPPED} for a stopped stream, null for a success. */
    public ErrorCode code() {
        return failure != null ? failure.code() : result == Result.STOPPED ? ErrorCode.STOPPED : null;
    }
}
