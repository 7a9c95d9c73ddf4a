package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The pure parts of a large-file lane: how much data a chunk holds, and what counts as a hole. */
class FileLaneTest {

    @Test
    void aLaneChunkHoldsWholePagesWhenTheyFitAndLeavesRoomForItsRecords() {
        int head = FileLane.HEAD + TreeFormat.FILE_END_MAX;
        assertThat(FileLane.payload(1 << 20)).isEqualTo(((1 << 20) - head) & ~4095);
        assertThat(FileLane.payload(4096 + head)).isEqualTo(4096);
        assertThat(FileLane.payload(4095 + head)).isEqualTo(4095);   // under a page: all of the room
        for (int size = head + 1; size < 3 << 16; size += 977) {
            int p = FileLane.payload(size);
            assertThat(p + head).as("buffer of %d", size).isLessThanOrEqualTo(size);
        }
    }

    /**
     * Seeded random buffers, direct and heap, of lengths around the 8-byte fast check and the
     * 64 KiB comparison block: all zeros exactly when no byte in the range is set.
     */
    @Test
    void zerosMeansEveryByteInTheRangeIsZero() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            for (int round = 0; round < 50; round++) {
                int n = switch (rnd.nextInt(4)) {
                    case 0 -> rnd.nextInt(16);
                    case 1 -> 65_536 + rnd.nextInt(3) - 1;
                    default -> 1 + rnd.nextInt(200_000);
                };
                int from = rnd.nextInt(64);
                ByteBuffer b = rnd.nextBoolean() ? ByteBuffer.allocateDirect(from + n + 64)
                        : ByteBuffer.allocate(from + n + 64);
                // Bytes just outside the range never count.
                b.put(from + n, (byte) 1);
                if (from > 0) {
                    b.put(from - 1, (byte) 1);
                }
                int set = n > 0 && rnd.nextBoolean() ? rnd.nextInt(n) : -1;
                if (set >= 0) {
                    b.put(from + set, (byte) (1 + rnd.nextInt(255)));
                }
                // Fewer than 8 bytes are never taken for a hole: not worth a record.
                boolean expected = set < 0 && n >= 8;
                assertThat(FileLane.zeros(b, from, n))
                        .as("seed %d round %d: %d bytes from %d, byte %d set", seed, round, n, from, set)
                        .isEqualTo(expected);
            }
        }
    }
}
