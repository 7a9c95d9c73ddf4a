package io.rdmaflux.protocol;

/** Constants that identify protocol version 2 on the wire; {@code docs/protocol.md} has the layouts. */
public final class ProtocolVersion {

    /** First four bytes of every HELLO: "RDFX". */
    public static final int MAGIC = 0x52444658;
    /** The version this build speaks. */
    public static final int CURRENT = 2;
    /** Bytes in a frame header on stream transports: type, flags, reserved, payload length. */
    public static final int HEADER_BYTES = 8;
    /** Largest control frame payload, tag included; anything bigger is a protocol error. */
    public static final int MAX_CONTROL_PAYLOAD = 64 * 1024;
    /**
     * Largest payload of every control frame but METADATA, tag included. A connection that has
     * not accepted data frames (a receiver before its sender authenticated; a sender, always)
     * takes no bigger control frame, so an unauthenticated peer costs at most this much.
     */
    public static final int MAX_SMALL_CONTROL_PAYLOAD = 4096;
    /** Bytes of the tag that seals every control frame after the handshake (its payload's last bytes). */
    public static final int SEAL_TAG_BYTES = 32;
    /** Bytes of random nonce each side contributes to the handshake. */
    public static final int NONCE_BYTES = 32;

    private ProtocolVersion() {
    }
}
