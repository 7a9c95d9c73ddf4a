package io.rdmaflux.crypto;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF with HMAC-SHA256 (RFC 5869): the channel derives its session keys with it, and codec
 * stages their stream keys (the JDK has no HKDF before Java 24).
 */
public final class Hkdf {

    private static final int HASH_LEN = 32;

    private Hkdf() {
    }

    /** HKDF-Extract then HKDF-Expand to {@code length} bytes. An empty or null salt means 32 zero bytes. */
    public static byte[] sha256(byte[] ikm, byte[] salt, byte[] info, int length) {
        if (length < 1 || length > 255 * HASH_LEN) {
            throw new IllegalArgumentException("invalid HKDF output length " + length);
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            byte[] s = salt == null || salt.length == 0 ? new byte[HASH_LEN] : salt;
            mac.init(new SecretKeySpec(s, "HmacSHA256"));
            byte[] prk = mac.doFinal(ikm);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            byte[] out = new byte[length];
            byte[] t = new byte[0];
            int filled = 0;
            for (int i = 1; filled < length; i++) {
                mac.update(t);
                mac.update(info);
                mac.update((byte) i);
                t = mac.doFinal();
                int n = Math.min(t.length, length - filled);
                System.arraycopy(t, 0, out, filled, n);
                filled += n;
            }
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
