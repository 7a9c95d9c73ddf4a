package io.rdmaflux.internal.protocol;

import io.rdmaflux.crypto.Hkdf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The keys of one connection, derived from the shared key and both HELLO payloads exactly as
 * they crossed the wire (so both nonces, both versions, roles, frame sizes and ring sizes):
 *
 * <pre>
 * k_auth | k_sender | k_receiver = HKDF-SHA256(key, salt = HELLO_sender || HELLO_receiver,
 *                                              info = "rdma-flux/2 session keys", 96 bytes)
 * proof(role) = HMAC-SHA256(k_auth, role)
 * </pre>
 *
 * A proof therefore shows that its sender knows the key <em>and</em> saw the same two HELLOs:
 * one recorded on another connection (other nonces) or altered on the way fails. The two frame
 * keys seal each direction's control frames after its AUTH ({@link FrameSeal}); the shared key
 * itself never crosses the wire.
 */
public final class SessionKeys {

    private static final byte[] INFO = "rdma-flux/2 session keys".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEXT_INFO = "rdma-flux/2 next stream keys".getBytes(StandardCharsets.US_ASCII);
    private static final int KEY_BYTES = 32;

    private final byte[] authKey;
    private final byte[] senderKey;
    private final byte[] receiverKey;

    private SessionKeys(byte[] okm) {
        authKey = Arrays.copyOfRange(okm, 0, KEY_BYTES);
        senderKey = Arrays.copyOfRange(okm, KEY_BYTES, 2 * KEY_BYTES);
        receiverKey = Arrays.copyOfRange(okm, 2 * KEY_BYTES, 3 * KEY_BYTES);
    }

    /** Derives the keys; the HELLO payloads are read from position to limit and not moved. */
    public static SessionKeys derive(byte[] sharedKey, ByteBuffer senderHello, ByteBuffer receiverHello) {
        if (sharedKey == null || sharedKey.length == 0) {
            throw new IllegalArgumentException("the shared key must not be empty");
        }
        byte[] salt = new byte[senderHello.remaining() + receiverHello.remaining()];
        senderHello.duplicate().get(salt, 0, senderHello.remaining());
        receiverHello.duplicate().get(salt, senderHello.remaining(), receiverHello.remaining());
        return new SessionKeys(Hkdf.sha256(sharedKey, salt, INFO, 3 * KEY_BYTES));
    }

    /**
     * The keys of the next stream on a kept connection: fresh frame keys from the shared key
     * and both sides' fresh NEXT nonces, so that no sealed frame of one stream opens in another.
     *
     * <pre>k_auth | k_sender | k_receiver = HKDF-SHA256(key, salt = nonce_sender || nonce_receiver,
     *                                              info = "rdma-flux/2 next stream keys", 96 bytes)</pre>
     */
    public static SessionKeys deriveNext(byte[] sharedKey, byte[] senderNonce, byte[] receiverNonce) {
        byte[] salt = new byte[senderNonce.length + receiverNonce.length];
        System.arraycopy(senderNonce, 0, salt, 0, senderNonce.length);
        System.arraycopy(receiverNonce, 0, salt, senderNonce.length, receiverNonce.length);
        return new SessionKeys(Hkdf.sha256(sharedKey, salt, NEXT_INFO, 3 * KEY_BYTES));
    }

    /** The AUTH payload a side with {@code role} sends. */
    public byte[] proof(Hello.Role role) {
        return FrameSeal.hmac(authKey).doFinal(new byte[] {(byte) role.code});
    }

    /** Checks a peer's proof in constant time. */
    public boolean verify(Hello.Role peerRole, byte[] proof) {
        return MessageDigest.isEqual(proof(peerRole), proof);
    }

    /** The seal for the control frames that the side with {@code role} sends after its AUTH. */
    public FrameSeal seal(Hello.Role role) {
        return new FrameSeal(role == Hello.Role.SENDER ? senderKey : receiverKey);
    }
}
