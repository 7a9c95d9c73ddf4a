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

    /** Waits until the count has read zero five times in a row, 10 ms apart (at most 10 s). */
    public static void awaitSteadyZero(java.util.function.IntSupplier count, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int zeros = 0;
        while (zeros < 5 && System.nanoTime() < deadline) {
            zeros = count.getAsInt() == 0 ? zeros + 1 : 0;
            Thread.sleep(10);
        }
        assertThat(zeros).as(what + ": never steadily zero; now " + count.getAsInt()).isEqualTo(5);
    }

    /** Waits (at most 10 s) until the count reads zero. */
    public static void awaitZero(java.util.function.IntSupplier count, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (count.getAsInt() != 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertThat(count.getAsInt()).as(what).isZero();
    }
}
