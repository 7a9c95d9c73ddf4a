package io.rdmaflux.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Challenge-response proofs of the shared key. Each side proves it knows the key by sending
 * HMAC-SHA256(key, label || role || senderNonce || receiverNonce). Both nonces are fresh per
 * connection, so a proof cannot be replayed, and the key itself never crosses the wire.
 */
public final class Authenticator {

    private static final byte[] LABEL = "rdma-flux/1 auth".getBytes(StandardCharsets.US_ASCII);
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

    /** The proof a side with {@code role} sends. */
    public byte[] proof(Hello.Role role, byte[] senderNonce, byte[] receiverNonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(LABEL);
            mac.update((byte) role.code);
            mac.update(senderNonce);
            mac.update(receiverNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Checks a peer's proof in constant time. */
    public boolean verify(Hello.Role peerRole, byte[] senderNonce, byte[] receiverNonce, byte[] proof) {
        return MessageDigest.isEqual(proof(peerRole, senderNonce, receiverNonce), proof);
    }
}
