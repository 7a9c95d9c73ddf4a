package io.rdmaflux.internal.protocol;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Authenticates the control frames of one direction of a connection. Each sealed payload is
 * the frame's own payload followed by a 32-byte tag,
 *
 * <pre>tag = HMAC-SHA256(k_direction, counter (u64) || frame type (u8) || payload)</pre>
 *
 * where the counter is the number of frames this direction sealed before (from 0; it is not
 * sent). A frame forged or altered on the way, replayed, reordered, or following a dropped one
 * fails to open. The side that seals and the side that opens each keep one instance per
 * direction; both must see the frames in the same order, which every transport guarantees.
 */
public final class FrameSeal {

    /** Bytes of tag at the end of every sealed payload. */
    public static final int TAG_BYTES = ProtocolVersion.SEAL_TAG_BYTES;

    private final Mac mac;
    private long counter;

    FrameSeal(byte[] key) {
        this.mac = hmac(key);
    }

    /** A new payload: {@code payload} (position to limit, not moved) followed by its tag. */
    public synchronized ByteBuffer seal(FrameType type, ByteBuffer payload) {
        byte[] tag = tag(type, payload.duplicate());
        return ByteBuffer.allocate(payload.remaining() + TAG_BYTES).put(payload.duplicate()).put(tag).flip();
    }

    /**
     * Checks a sealed payload and returns the frame's own payload (a view without the tag).
     *
     * @throws RdmaFluxException PROTOCOL when the tag does not verify
     */
    public synchronized ByteBuffer open(FrameType type, ByteBuffer sealed) {
        if (sealed.remaining() < TAG_BYTES) {
            throw forged(type);
        }
        ByteBuffer payload = sealed.slice(sealed.position(), sealed.remaining() - TAG_BYTES);
        byte[] tag = new byte[TAG_BYTES];
        sealed.get(sealed.limit() - TAG_BYTES, tag);
        if (!MessageDigest.isEqual(tag(type, payload.duplicate()), tag)) {
            throw forged(type);
        }
        return payload;
    }

    private byte[] tag(FrameType type, ByteBuffer payload) {
        mac.update(ByteBuffer.allocate(9).putLong(counter++).put((byte) type.code()).flip());
        mac.update(payload);
        return mac.doFinal();
    }

    private static RdmaFluxException forged(FrameType type) {
        return new RdmaFluxException(ErrorCode.PROTOCOL, "a " + type + " frame failed authentication: "
                + "it was forged, altered, replayed or reordered on the way, or one before it was dropped");
    }

    static Mac hmac(byte[] key) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
