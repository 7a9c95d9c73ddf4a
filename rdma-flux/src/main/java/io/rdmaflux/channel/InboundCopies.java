package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** The copying forms of {@link InboundStream}: bytes moved out of a receive slot into the heap. */
final class InboundCopies {

    private InboundCopies() {
    }

    /** A heap copy of the chunk's bytes; the chunk is released whatever happens. */
    static ByteBuffer copyAndRelease(Chunk chunk) {
        try {
            ByteBuffer b = chunk.buffer();
            return ByteBuffer.allocate(b.remaining()).put(b.duplicate()).flip();
        } finally {
            chunk.release();
        }
    }

    /** The bytes of one stream gathered into one array that grows by doubling up to a bound. */
    static final class Aggregate {

        private static final int FIRST_CAPACITY = 64 * 1024;

        private final int maxBytes;
        private byte[] bytes = new byte[0];
        private int size;

        Aggregate(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        /** Appends the chunk's bytes and releases it; fails once the stream passes the bound. */
        void add(Chunk chunk) {
            try {
                ByteBuffer b = chunk.buffer();
                int n = b.remaining();
                if (n > maxBytes - size) {
                    throw new RdmaFluxException(ErrorCode.SINK_FAILED, "the stream is longer than the "
                            + maxBytes + " bytes aggregate(" + maxBytes + ") accepts");
                }
                if (size + n > bytes.length) {
                    int grown = (int) Math.min(maxBytes, Math.max(size + (long) n, Math.max(FIRST_CAPACITY, 2L * bytes.length)));
                    bytes = Arrays.copyOf(bytes, grown);
                }
                b.duplicate().get(bytes, size, n);
                size += n;
            } finally {
                chunk.release();
            }
        }

        ByteBuffer result() {
            return ByteBuffer.wrap(bytes, 0, size).slice();
        }
    }
}
