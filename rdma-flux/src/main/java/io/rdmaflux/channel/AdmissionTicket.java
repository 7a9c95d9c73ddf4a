package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One receiving session's place in its receiver's {@link Admission}, from the connection's
 * arrival to the stream's end: counted while its handshake lasts, a claim on the memory budget
 * once its sender authenticated (or taken over from a kept connection), then handed on to the
 * kept connection or given back. Kept apart from {@link ReceiverSession} so that the order of
 * these steps is in one place.
 */
final class AdmissionTicket {

    private final Admission admission;
    private final ReceiverSession session;
    /** Whether the session still counts as in its handshake; a stream on a kept connection never does. */
    private final AtomicBoolean handshakeCounted;

    /** The ticket of {@code session}; on a kept connection ({@code kept} not null) it takes over its claim. */
    AdmissionTicket(Admission admission, ReceiverSession session, KeptConnection kept) {
        this.admission = admission;
        this.session = session;
        if (kept != null) { // the kept connection's ring, and its claim on the budget, are this stream's now
            admission.takeOver(kept, session);
        }
        // A stream on a kept connection has no handshake to count: its peer authenticated before.
        this.handshakeCounted = new AtomicBoolean(kept == null);
    }

    /** The session has begun its handshake. */
    void waiting() {
        admission.waiting(session);
    }

    /** The handshake is over (authenticated or failed): the session no longer counts as pending. */
    void handshakeEnded() {
        if (handshakeCounted.compareAndSet(true, false)) {
            admission.handshakeEnded(session);
        }
    }

    /**
     * The sender authenticated: the stream claims its place and memory.
     *
     * @throws RdmaFluxException BUSY, saying why, when it may not have them
     */
    void claim() {
        refuseIf(admission.claim(session));
    }

    /** As {@link #claim()} for the next stream on a kept connection, unless it holds its connection's claim. */
    void claimNext() {
        refuseIf(admission.holds(session) ? null : admission.claim(session));
    }

    private static void refuseIf(String refusal) {
        if (refusal != null) {
            throw new RdmaFluxException(ErrorCode.BUSY, refusal);
        }
    }

    /**
     * The stream ended well. A connection that will be kept ({@code kept} not null) keeps the
     * claim with its ring (its next stream takes both over); otherwise the claim goes back.
     */
    void keepOrEnd(KeptConnection kept) {
        admission.keepOrEnd(session, kept);
    }

    /** The connection meant to be kept closed instead, and its ring with it. */
    void connectionGone(KeptConnection kept) {
        admission.connectionGone(kept);
    }

    /** The stream failed: its claim, if any, goes back. */
    void streamEnded() {
        admission.streamEnded(session);
    }
}
