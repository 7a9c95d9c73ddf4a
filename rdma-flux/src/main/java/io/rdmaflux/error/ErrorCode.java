package io.rdmaflux.error;

/**
 * Why a stream failed. The code travels in ERROR frames, so both sides report the same cause.
 * What a program does with it (the tools' exit codes, say) is the program's business.
 */
public enum ErrorCode {
    /** Unexpected or malformed frame, or a broken credit rule. */
    PROTOCOL(1),
    /** Peer speaks another protocol or version. */
    VERSION(2),
    /** Shared key mismatch (HMAC proof did not verify). */
    AUTHENTICATION(3),
    /** The stream ended early: connection lost, peer died, or END missing. */
    TRUNCATED(4),
    /** END frame's byte count or checksum disagree with what arrived. */
    CHECKSUM(5),
    /** The receiving application (sink) failed: disk full, permission denied, ... */
    SINK_FAILED(6),
    /** The sending application (source) failed: read error, command failed, ... */
    SOURCE_FAILED(7),
    /** A codec stage failed: corrupt or tampered data, unknown codec. */
    CODEC(8),
    /** The other side cancelled the stream. */
    CANCELLED(9),
    /** Nothing heard from the peer within the idle timeout, or a handshake step timed out. */
    TIMEOUT(10),
    /** Could not connect, or could not listen. */
    CONNECT(11),
    /** The requested transport is not usable here. */
    TRANSPORT_UNAVAILABLE(12),
    /** A bug or an unclassified failure. */
    INTERNAL(13),
    /** The receiver already serves a stream and takes no other, or its memory budget for streams is full. */
    BUSY(14),
    /** The side was interrupted by a signal (Ctrl-C, SIGTERM) and gave up the stream. */
    INTERRUPTED(15),
    /**
     * The receiver ended the stream on purpose before its end: its handler completed, having
     * taken what it needed. A success for the receiver; the sender's stream fails with it, so
     * that a sender never takes a stream cut short for a whole one.
     */
    STOPPED(16);

    private final int wire;

    ErrorCode(int wire) {
        this.wire = wire;
    }

    /** Code carried in ERROR frames. */
    public int wire() {
        return wire;
    }

    /** The error code for a wire value; unknown values map to {@link #INTERNAL}. */
    public static ErrorCode ofWire(int wire) {
        for (ErrorCode c : values()) {
            if (c.wire == wire) {
                return c;
            }
        }
        return INTERNAL;
    }
}
