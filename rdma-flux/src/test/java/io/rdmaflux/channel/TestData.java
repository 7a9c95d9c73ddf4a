package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.awaitility.Awaitility;

/** Seeded test data and digests, shared by the channel tests. */
public final class TestData {

    private TestData() {
    }

    /** {@code size} pseudo-random bytes from {@code seed}. */
    public static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Cuts {@code data} into buffers of random sizes between 1 and {@code maxPiece}. */
    public static List<ByteBuffer> pieces(byte[] data, long seed, int maxPiece) {
        Random r = new Random(seed);
        List<ByteBuffer> out = new ArrayList<>();
        int pos = 0;
        while (pos < data.length) {
            int n = Math.min(data.length - pos, 1 + r.nextInt(maxPiece));
            out.add(ByteBuffer.wrap(data, pos, n).slice());
            pos += n;
        }
        return out;
    }

    public static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Waits (at most 10 s) until a lease count reads zero: leases come back on other threads after
     * complete, error or cancel. Kept as a helper, not inlined, because some twenty leak checks in
     * three modules share its bound and its message (the count when it gave up).
     */
    public static void awaitZero(java.util.function.IntSupplier count, String what) {
        Awaitility.await(what).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> assertThat(count.getAsInt()).as(what).isZero());
    }
}
