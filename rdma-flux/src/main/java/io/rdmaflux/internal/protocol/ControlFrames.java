package io.rdmaflux.internal.protocol;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.RemoteText;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Encoders and decoders for the small fixed-layout control frame payloads. */
public final class ControlFrames {

    private ControlFrames() {
    }

    /** CREDIT: u32 number of receive slots freed. */
    public static ByteBuffer credit(int n) {
        return ByteBuffer.allocate(4).putInt(n).flip();
    }

    public static int decodeCredit(ByteBuffer b) {
        int n = read(b, 4).getInt();
        if (n <= 0) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "malformed CREDIT frame");
        }
        return n;
    }

    /** END: u64 stream byte count, u32 CRC32C of the stream. */
    public static ByteBuffer end(long bytes, int crc) {
        return ByteBuffer.allocate(12).putLong(bytes).putInt(crc).flip();
    }

    /** The content of an END frame. */
    public record End(long bytes, int crc) {
    }

    public static End decodeEnd(ByteBuffer b) {
        ByteBuffer r = read(b, 12);
        return new End(r.getLong(), r.getInt());
    }

    /** END_ACK: u64 byte count the receiver's consumer took. */
    public static ByteBuffer endAck(long bytes) {
        return ByteBuffer.allocate(8).putLong(bytes).flip();
    }

    public static long decodeEndAck(ByteBuffer b) {
        return read(b, 8).getLong();
    }

    /** NEXT: a fresh 32-byte nonce. */
    public static ByteBuffer next(byte[] nonce) {
        return ByteBuffer.wrap(nonce.clone());
    }

    public static byte[] decodeNext(ByteBuffer b) {
        if (b.remaining() != io.rdmaflux.protocol.ProtocolVersion.NONCE_BYTES) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "malformed NEXT frame");
        }
        byte[] nonce = new byte[b.remaining()];
        b.get(nonce);
        return nonce;
    }

    /** AUTH: a 32-byte HMAC proof ({@link SessionKeys#proof}). */
    public static byte[] decodeAuth(ByteBuffer b) {
        byte[] proof = new byte[32];
        read(b, 32).get(proof);
        return proof;
    }

    /** ERROR: u16 error code, u16 message length, UTF-8 message. */
    public static ByteBuffer error(ErrorCode code, String message) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(m.length, 4000);
        return ByteBuffer.allocate(4 + len).putShort((short) code.wire()).putShort((short) len).put(m, 0, len).flip();
    }

    /**
     * Decodes an ERROR frame into the exception it describes, with the peer's words made safe
     * to print ({@link RemoteText#sanitize}).
     */
    public static RdmaFluxException decodeError(ByteBuffer b) {
        try {
            ErrorCode code = ErrorCode.ofWire(Short.toUnsignedInt(b.getShort()));
            byte[] m = new byte[Short.toUnsignedInt(b.getShort())];
            b.get(m);
            return new RdmaFluxException(code, RemoteText.sanitize(new String(m, StandardCharsets.UTF_8)));
        } catch (BufferUnderflowException e) {
            return new RdmaFluxException(ErrorCode.PROTOCOL, "malformed ERROR frame");
        }
    }

    private static ByteBuffer read(ByteBuffer b, int bytes) {
        if (b.remaining() < bytes) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "control frame too short");
        }
        return b;
    }
}
