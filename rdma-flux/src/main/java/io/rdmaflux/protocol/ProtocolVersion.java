package io.rdmaflux.protocol;

/** Constants that identify protocol version 1 on the wire. */
public final class ProtocolVersion {

    /** First four bytes of every HELLO: "RDFX". */
    public static final int MAGIC = 0x52444658;
    /** The version this build speaks. */
    public static final int CURRENT = 1;
    /** Bytes in a frame header on stream transports: type, flags, reserved, payload length. */
    public static final int HEADER_BYTES = 8;
    /** Largest control frame payload; anything bigger is a protocol error. */
    public static final int MAX_CONTROL_PAYLOAD = 64 * 1024;
    /** Bytes of random nonce each side contributes to the handshake. */
    public static final int NONCE_BYTES = 32;

    private ProtocolVersion() {
    }
}
