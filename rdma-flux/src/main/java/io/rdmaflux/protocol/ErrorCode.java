package io.rdmaflux.protocol;

/**
 * Why a stream failed. The code travels in ERROR frames, so both sides report the same cause,
 * and the command-line tools map each to a documented exit code.
 */
public enum ErrorCode {
    /** Unexpected or malformed frame, or a broken credit rule. */
    PROTOCOL(1, 70),
    /** Peer speaks another protocol or version. */
    VERSION(2, 70),
    /** Shared key mismatch (HMAC proof did not verify). */
    AUTHENTICATION(3, 77),
    /** The stream ended early: connection lost, peer died, or END missing. */
    TRUNCATED(4, 75),
    /** END frame's byte count or checksum disagree with what arrived. */
    CHECKSUM(5, 76),
    /** The receiving application (sink) failed: disk full, permission denied, ... */
    SINK_FAILED(6, 74),
    /** The sending application (source) failed: read error, command failed, ... */
    SOURCE_FAILED(7, 66),
    /** A codec stage failed: corrupt or tampered data, unknown codec. */
    CODEC(8, 65),
    /** The other side cancelled the stream. */
    CANCELLED(9, 75),
    /** Nothing heard from the peer within the idle timeout, or a handshake step timed out. */
    TIMEOUT(10, 75),
    /** Could not connect, or could not listen. */
    CONNECT(11, 69),
    /** The requested transport is not usable here. */
    TRANSPORT_UNAVAILABLE(12, 69),
    /** A bug or an unclassified failure. */
    INTERNAL(13, 70);

    private final int wire;
    private final int exitCode;

    ErrorCode(int wire, int exitCode) {
        this.wire = wire;
        this.exitCode = exitCode;
    }

    /** Code carried in ERROR frames. */
    public int wire() {
        return wire;
    }

    /** Process exit code the tools use for this failure (sysexits.h values). */
    public int exitCode() {
        return exitCode;
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
