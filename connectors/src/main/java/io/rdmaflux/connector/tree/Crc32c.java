package io.rdmaflux.connector.tree;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C arithmetic that does not touch every byte: the CRC of a run of zeros and of two
 * pieces joined, in O(log n) steps. A hole of {@code n} bytes a sender declares must cost the
 * receiver a bounded amount of work however large {@code n} is, and the file's CRC still has
 * to cover its zeros.
 *
 * <p>Why it works: a CRC register fed a zero bit is multiplied by {@code x} modulo the
 * polynomial, so {@code n} zero bytes multiply it by {@code x^(8n) mod P}. That power is built
 * from the powers {@code x^(2^k) mod P} by square-and-multiply. Polynomials are held
 * bit-reflected, as CRC32C itself holds them: the highest bit of an {@code int} is {@code x^0}.
 */
final class Crc32c {

    /** The Castagnoli polynomial, reflected. */
    private static final int POLY = 0x82F63B78;
    /** {@code x^0}, reflected. */
    private static final int ONE = 0x80000000;
    /** {@code POWERS[k] = x^(2^k) mod P}, up to the highest bit of a long count of bytes times 8. */
    private static final int[] POWERS = new int[3 + 63];

    static {
        POWERS[0] = ONE >>> 1;   // x^1
        for (int k = 1; k < POWERS.length; k++) {
            POWERS[k] = multiply(POWERS[k - 1], POWERS[k - 1]);
        }
    }

    private Crc32c() {
    }

    /** {@code a * b mod P}, both reflected. */
    static int multiply(int a, int b) {
        int product = 0;
        for (int bit = ONE; bit != 0 && a != 0; bit >>>= 1) {
            if ((a & bit) != 0) {
                product ^= b;
                a ^= bit;
            }
            // b := b * x mod P
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return product;
    }

    /** {@code x^(8 * bytes) mod P}: what a register is multiplied by when {@code bytes} zero bytes go through it. */
    static int zerosOperator(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative length " + bytes);
        }
        int p = ONE;
        // bytes * 8 = bytes * 2^3: bit i of bytes stands for x^(2^(i+3)).
        for (int k = 3; bytes != 0; bytes >>>= 1, k++) {
            if ((bytes & 1) != 0) {
                p = multiply(POWERS[k], p);
            }
        }
        return p;
    }

    /** The CRC32C of what gave {@code crc}, followed by {@code zeros} zero bytes. */
    static int appendZeros(int crc, long zeros) {
        // The value is the complement of the register; zeros only shift the register.
        return ~multiply(zerosOperator(zeros), ~crc);
    }

    /** The CRC32C of A followed by B, given A's CRC, B's CRC and B's length. */
    static int combine(int crcA, int crcB, long lengthB) {
        // B's CRC started from an all-ones register; starting from A's register instead adds
        // (A's register xor all-ones) shifted through B's length, which is linear.
        return multiply(zerosOperator(lengthB), crcA) ^ crcB;
    }

    /**
     * A CRC32C that is fed data and runs of zeros: data goes through {@link CRC32C} (with the
     * JDK's hardware intrinsic), zeros cost O(log n) whatever their number.
     */
    static final class Running {
        private final CRC32C piece = new CRC32C();
        private long pieceLength;
        /** The CRC of everything before the current piece. */
        private int before;

        /** Feeds the bytes between {@code data}'s position and limit; its position ends at its limit. */
        void update(ByteBuffer data) {
            pieceLength += data.remaining();
            piece.update(data);
        }

        /** Feeds {@code n} zero bytes. */
        void zeros(long n) {
            before = appendZeros(value(), n);
            piece.reset();
            pieceLength = 0;
        }

        int value() {
            return combine(before, (int) piece.getValue(), pieceLength);
        }

        /** Starts again from nothing (a prefix that was fed and then not taken). */
        void reset() {
            piece.reset();
            pieceLength = 0;
            before = 0;
        }
    }
}
