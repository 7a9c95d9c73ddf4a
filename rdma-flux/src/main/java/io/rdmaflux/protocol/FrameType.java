package io.rdmaflux.protocol;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;

/**
 * The kinds of frame in protocol version 2; {@code docs/protocol.md} gives each one's layout.
 * The code is the byte that identifies the frame on the wire.
 */
public enum FrameType {
    /** Magic, version, role, nonce; the receiver's also carries its ring size and slot size. */
    HELLO(1),
    /** HMAC-SHA256 proof that the sender of the frame knows the shared key and saw both HELLOs. */
    AUTH(2),
    /** Stream metadata: codec chain, name, size. Sender to receiver, once, before data. */
    METADATA(3),
    /** A chunk of stream bytes; uses one credit. */
    DATA(4),
    /** Receiver to sender: this many receive slots are free again. */
    CREDIT(5),
    /** Sender to receiver: the stream is complete, with its byte count and CRC32C. */
    END(6),
    /** Receiver to sender: the stream was received whole and its consumer finished. */
    END_ACK(7),
    /** Either way: the stream failed, with an error code and a reason. Last frame sent. */
    ERROR(8),
    /** Either way: keep-alive sent when a side has nothing else to say. */
    PING(9),
    /**
     * Either way, on a kept connection: the next stream begins. The sender's carries its fresh
     * nonce, the receiver's answer its own; both then seal with keys derived from those nonces.
     */
    NEXT(10);

    private static final FrameType[] BY_CODE = new FrameType[16];

    static {
        for (FrameType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    /** The wire code of this frame type. */
    public int code() {
        return code;
    }

    /**
     * The frame type for a wire code.
     *
     * @throws RdmaFluxException for an unknown code
     */
    public static FrameType of(int code) {
        FrameType t = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        if (t == null) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "unknown frame type " + code);
        }
        return t;
    }
}
