package io.rdmaflux.internal.protocol;

import io.rdmaflux.protocol.ProtocolVersion;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The shared key of one side, and what the handshake makes of it: fresh nonces for HELLOs and,
 * once both HELLOs are known, the connection's {@link SessionKeys} (proofs and frame seals).
 * The key itself never crosses the wire.
 */
public final class Authenticator {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    public Authenticator(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("the shared key must not be empty");
        }
        this.key = key.clone();
    }

    /** A fresh random nonce for a HELLO. */
    public static byte[] newNonce() {
        byte[] n = new byte[ProtocolVersion.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** The keys of a connection whose HELLO payloads, as they crossed the wire, are these. */
    public SessionKeys keys(ByteBuffer senderHello, ByteBuffer receiverHello) {
        return SessionKeys.derive(key, senderHello, receiverHello);
    }
}
