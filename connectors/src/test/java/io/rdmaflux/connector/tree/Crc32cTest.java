package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Properties of the closed-form CRC32C arithmetic, each checked on many random cases against
 * {@link CRC32C} fed every byte: random data with runs of zeros between, pieces joined, and
 * runs too long to feed adding up. Each case's seed is in the failure message.
 */
class Crc32cTest {

    private static final int CASES = 300;

    @Test
    void dataAndZeroRunsGiveTheCrcOfEveryByte() {
        Random seeds = new Random(21);
        for (int i = 0; i < CASES; i++) {
            long seed = seeds.nextLong();
            Random r = new Random(seed);
            CRC32C direct = new CRC32C();
            Crc32c.Running running = new Crc32c.Running();
            int pieces = r.nextInt(9);
            for (int p = 0; p < pieces; p++) {
                if (r.nextBoolean()) {
                    byte[] data = bytes(r, r.nextInt(2000));
                    direct.update(data);
                    // Data as the parser passes it: a slice of a larger buffer.
                    ByteBuffer b = ByteBuffer.allocate(data.length + 10).position(5);
                    b.put(data).flip().position(5);
                    running.update(b);
                    assertThat(b.hasRemaining()).isFalse();
                } else {
                    int zeros = edgy(r, 200_000);
                    direct.update(new byte[zeros]);
                    running.zeros(zeros);
                }
            }
            assertThat(running.value()).as("seed %d", seed).isEqualTo((int) direct.getValue());
        }
    }

    @Test
    void combineIsTheCrcOfTheJoinedPieces() {
        Random seeds = new Random(22);
        for (int i = 0; i < CASES; i++) {
            long seed = seeds.nextLong();
            Random r = new Random(seed);
            byte[] a = bytes(r, edgy(r, 3000));
            byte[] b = bytes(r, edgy(r, 3000));
            CRC32C joined = new CRC32C();
            joined.update(a);
            joined.update(b);
            assertThat(Crc32c.combine(crc(a), crc(b), b.length)).as("seed %d", seed).isEqualTo((int) joined.getValue());
        }
    }

    @Test
    void zerosAfterDataAreTheCrcOfTheZerosWritten() {
        Random seeds = new Random(23);
        for (int i = 0; i < CASES; i++) {
            long seed = seeds.nextLong();
            Random r = new Random(seed);
            byte[] a = bytes(r, r.nextInt(500));
            int zeros = edgy(r, 300_000);
            CRC32C direct = new CRC32C();
            direct.update(a);
            direct.update(new byte[zeros]);
            assertThat(Crc32c.appendZeros(crc(a), zeros)).as("seed %d", seed).isEqualTo((int) direct.getValue());
        }
    }

    /** Counts too large to feed byte by byte: two runs make the run of their sum, up to the largest long. */
    @Test
    void runsOfZerosAddUpForAnyLength() {
        Random seeds = new Random(24);
        for (int i = 0; i < CASES * 3; i++) {
            long seed = seeds.nextLong();
            Random r = new Random(seed);
            int crc = r.nextInt();
            long x = i == 0 ? Long.MAX_VALUE / 2 : r.nextLong() >>> (2 + r.nextInt(62));
            long y = i == 0 ? Long.MAX_VALUE / 2 + 1 : r.nextLong() >>> (2 + r.nextInt(62));
            assertThat(Crc32c.appendZeros(Crc32c.appendZeros(crc, x), y)).as("seed %d", seed)
                    .isEqualTo(Crc32c.appendZeros(crc, x + y));
        }
    }

    @Test
    void knownValues() {
        // The CRC32C check value, and 32 zero bytes (RFC 3720, B.4: 0x8A9136AA).
        CRC32C check = new CRC32C();
        check.update("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat((int) check.getValue()).isEqualTo(0xE3069283);
        assertThat(Crc32c.appendZeros(0, 32)).isEqualTo(0x8A9136AA);
        assertThat(Crc32c.appendZeros(0, 0)).isZero();
    }

    /** A length up to {@code max}, often 0, 1 or a power of two and its neighbours, where carries go wrong. */
    private static int edgy(Random r, int max) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextInt(3);
            case 1 -> Math.min(max, (1 << r.nextInt(18)) + r.nextInt(3) - 1);
            default -> r.nextInt(max + 1);
        };
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static int crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }
}
