package io.rdmaflux.internal.protocol;

import io.rdmaflux.protocol.ProtocolVersion;
import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import javax.crypto.Mac;

/**
 * The shared key of one side, and what the handshake makes of it: fresh nonces for HELLOs and,
 * once both HELLOs are known, the connection's {@link SessionKeys} (proofs and frame seals).
 * The key itself never crosses the wire.
 */
public final class Authenticator {

    /**
     * A DRBG, seeded once from the system's entropy (a file read) and then computed in memory:
     * nonces are made on event loops, where reading /dev/urandom for each one (as the default
     * NativePRNG does) is a blocking call. {@link #prepare()} seeds it off the loop.
     */
    private static final SecureRandom RANDOM = drbg();
    private static volatile boolean prepared;

    private final byte[] key;

    public Authenticator(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("the shared key must not be empty");
        }
        this.key = key.clone();
    }

    /**
     * Seeds the nonce generator, which reads the system's entropy once, and loads the JDK's
     * HMAC (which reads its crypto policy files once): call it on a thread
     * that may block, before the first handshake on an event loop. Cheap after the first call.
     */
    public static void prepare() {
        if (!prepared) {
            RANDOM.nextBytes(new byte[1]);
            try {
                // The JDK reads its crypto policy files when HMAC is first asked for; the
                // handshake asks on an event loop, so ask here first.
                Mac.getInstance("HmacSHA256");
            } catch (NoSuchAlgorithmException e) {
                // The handshake will say so, with its own message.
            }
            prepared = true;
        }
    }

    /** Whether {@link #prepare()} has run: nonces and HMAC no longer touch a file. */
    public static boolean isPrepared() {
        return prepared;
    }

    /** A fresh random nonce for a HELLO; blocks once, to seed, unless {@link #prepare()} ran. */
    public static byte[] newNonce() {
        byte[] n = new byte[ProtocolVersion.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    private static SecureRandom drbg() {
        try {
            // Made unseeded; the first nextBytes seeds it (prepare(), off the event loop).
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            // Every Java 9+ runtime has DRBG; keep working (blocking per nonce) if one does not.
            return new SecureRandom();
        }
    }

    /** The keys of the next stream on a kept connection, from both sides' NEXT nonces. */
    public SessionKeys nextKeys(byte[] senderNonce, byte[] receiverNonce) {
        return SessionKeys.deriveNext(key, senderNonce, receiverNonce);
    }

    /** The keys of a connection whose HELLO payloads, as they crossed the wire, are these. */
    public SessionKeys keys(ByteBuffer senderHello, ByteBuffer receiverHello) {
        return SessionKeys.derive(key, senderHello, receiverHello);
    }
}
