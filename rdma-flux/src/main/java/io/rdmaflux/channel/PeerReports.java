package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.EnumSet;
import java.util.Set;

/**
 * How a failure the peer reports (its ERROR frame) reads on this side: which codes a peer may
 * choose before it authenticated, and the wording that names the peer. Kept apart from
 * {@link SessionBase} so that what users read of a remote failure is decided in one place.
 */
final class PeerReports {

    /**
     * The codes an unauthenticated peer's ERROR may carry; any other becomes PROTOCOL, so that
     * whoever can reach the port cannot pass off a failure as, say, a checksum mismatch. (One
     * that closes the connection gets TRUNCATED anyway, so TIMEOUT gives nothing away.)
     */
    static final Set<ErrorCode> UNAUTHENTICATED_CODES = EnumSet.of(ErrorCode.PROTOCOL, ErrorCode.VERSION,
            ErrorCode.AUTHENTICATION, ErrorCode.BUSY, ErrorCode.TIMEOUT);

    private PeerReports() {
    }

    /**
     * The failure the peer's ERROR ends this side's stream with; an unauthenticated peer's code
     * is kept only if it is one of {@link #UNAUTHENTICATED_CODES}.
     */
    static RdmaFluxException fromPeer(RdmaFluxException peerError, boolean authentic, String peerRole,
                                      String peerAddress) {
        ErrorCode code = peerError.code();
        if (!authentic && !UNAUTHENTICATED_CODES.contains(code)) {
            SessionBase.log.debug("{} sent error code {} before it authenticated; taken as a protocol error",
                    peerAddress, code);
            code = ErrorCode.PROTOCOL;
        }
        // Our proof refused (unsealed: before the handshake ended). The peer's message names this
        // side as seen from there ("the sender at ..."); here the peer is the one to name.
        String message = code == ErrorCode.AUTHENTICATION && !authentic ? wrongKey(peerRole, peerAddress, "uses")
                : reported(peerRole, peerError.getMessage());
        return RdmaFluxException.fromPeer(code, message);
    }

    /** "authentication failed: the receiver at ADDRESS used a different key ...", naming the peer. */
    static String wrongKey(String peerRole, String peerAddress, String verb) {
        return "authentication failed: the " + peerRole + " at " + peerAddress + " " + verb
                + " a different key (or the handshake was altered on the way)";
    }

    /**
     * "receiver reported: MESSAGE"; once only when the peer relays its own peer's report (a
     * pipeline between two channels), which would otherwise read "receiver reported: receiver
     * reported: ..." once per hop.
     */
    static String reported(String role, String message) {
        String prefix = role + " reported: ";
        return message.startsWith(prefix) ? message : prefix + message;
    }
}
