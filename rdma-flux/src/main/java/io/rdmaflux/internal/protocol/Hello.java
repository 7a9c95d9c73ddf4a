package io.rdmaflux.internal.protocol;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.ProtocolVersion;
import java.nio.ByteBuffer;

/**
 * The first frame each side sends.
 *
 * @param role         whether the peer sends or receives the stream
 * @param nonce        32 random bytes, mixed into the authentication proofs and session keys
 * @param frameSize    largest data payload the side accepts
 * @param receiveSlots the side's receive ring size: the credits its peer starts with
 * @param features     what else the side understands, one bit each ({@link #TAKES_STOPPED}, {@link #REUSES}); a
 *                     side that predates a bit sends 0 there and ignores what it receives
 */
public record Hello(Role role, byte[] nonce, int frameSize, int receiveSlots, int features) {

    /**
     * A sender with this bit understands ERROR code 16 (STOPPED): a receiver tells it that its
     * handler ended the stream on purpose, and tells an older sender CANCELLED instead.
     */
    public static final int TAKES_STOPPED = 1;

    /**
     * A side with this bit keeps the connection after a stream that ended well, for the next
     * stream (NEXT); a connection is kept only when both sides set it.
     */
    public static final int REUSES = 2;

    /** A HELLO with no feature bits. */
    public Hello(Role role, byte[] nonce, int frameSize, int receiveSlots) {
        this(role, nonce, frameSize, receiveSlots, 0);
    }

    /** Whether the side set {@code bit}. */
    public boolean has(int bit) {
        return (features & bit) != 0;
    }

    /** Which end of a stream a side is. */
    public enum Role {
        SENDER(1), RECEIVER(2);

        final int code;

        Role(int code) {
            this.code = code;
        }
    }

    private static final int BYTES = 4 + 2 + 1 + 1 + ProtocolVersion.NONCE_BYTES + 4 + 4;

    /** Encodes this HELLO's payload. */
    public ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.putInt(ProtocolVersion.MAGIC).putShort((short) ProtocolVersion.CURRENT)
                .put((byte) role.code).put((byte) features).put(nonce).putInt(frameSize).putInt(receiveSlots);
        return b.flip();
    }

    /**
     * Decodes and checks a HELLO payload.
     *
     * @throws RdmaFluxException VERSION for a foreign or other-version peer, PROTOCOL otherwise
     */
    public static Hello decode(ByteBuffer b) {
        if (b.remaining() < 6 || b.getInt(b.position()) != ProtocolVersion.MAGIC) {
            throw new RdmaFluxException(ErrorCode.VERSION, "peer is not an rdma-flux endpoint (bad magic)");
        }
        b.getInt();
        int version = Short.toUnsignedInt(b.getShort());
        if (version != ProtocolVersion.CURRENT) {
            throw new RdmaFluxException(ErrorCode.VERSION, "peer speaks protocol version " + version
                    + ", this side speaks version " + ProtocolVersion.CURRENT + "; install the same rdma-flux release on both hosts");
        }
        if (b.remaining() < BYTES - 6) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "HELLO frame too short");
        }
        int roleCode = b.get();
        int features = Byte.toUnsignedInt(b.get());
        byte[] nonce = new byte[ProtocolVersion.NONCE_BYTES];
        b.get(nonce);
        int frameSize = b.getInt();
        int slots = b.getInt();
        Role role = roleCode == 1 ? Role.SENDER : roleCode == 2 ? Role.RECEIVER : null;
        if (role == null || frameSize <= 0 || slots <= 0) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "malformed HELLO frame");
        }
        return new Hello(role, nonce, frameSize, slots, features);
    }
}
