package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Positional reads of a regular file, for {@link FileSource}: kept out of the public
 * {@link ChunkReader} because a plugin has no use for the end check, which is the file
 * source's own rule about files that change while they are sent.
 */
final class PositionalReader {

    private PositionalReader() {
    }

    /** What a positional reader checks once it reached the size it was given, or the file ended before. */
    @FunctionalInterface
    interface EndCheck {
        /**
         * @param channel the file
         * @param read    the bytes read: the size given, or fewer if the file ended first
         * @throws IOException to fail the read instead of ending the data
         */
        void verify(FileChannel channel, long read) throws IOException;
    }

    /**
     * Positional reads of the first {@code size} bytes of a regular file: large, never short
     * except at the end. At the end, {@code check} decides whether the data really ended.
     */
    static ChunkReader of(FileChannel channel, long size, EndCheck check) {
        return new ChunkReader() {
            private long position;
            private boolean ended;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                if (ended) {
                    return -1;
                }
                int limit = dst.limit();
                dst.limit(dst.position() + (int) Math.min(dst.remaining(), size - position));
                int total = 0;
                try {
                    while (dst.hasRemaining()) {
                        int n = channel.read(dst, position);
                        if (n < 0) {
                            break;
                        }
                        position += n;
                        total += n;
                    }
                } finally {
                    dst.limit(limit);
                }
                if (total > 0) {
                    return total;
                }
                ended = true;
                check.verify(channel, position);
                return -1;
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }
}
