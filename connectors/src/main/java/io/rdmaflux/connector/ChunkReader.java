package io.rdmaflux.connector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;

/** Blocking reads of one opened resource; used only by {@link ReadLoop}, one call at a time. */
interface ChunkReader {

    /**
     * Fills {@code dst} from its position, blocking until at least one byte arrived.
     *
     * @return the bytes read, or -1 at the end of the data when nothing was read
     */
    int read(ByteBuffer dst) throws IOException;

    /** Closes what was opened (or leaves it open when it is not ours, such as stdin). */
    void close() throws IOException;

    /**
     * Unblocks a read that may wait indefinitely (a pipe, a terminal), from another thread;
     * called on cancel while a read is in progress. Regular files need nothing.
     */
    default void abort() {
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
    static ChunkReader positional(FileChannel channel, long size, EndCheck check) {
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

    /**
     * Sequential reads of a stream (pipe, terminal, device). After the first read it keeps
     * reading while {@code in} says more bytes are ready, so a fast producer fills whole
     * chunks while a slow one is forwarded without waiting for a chunk to fill.
     *
     * @param in     the stream, for {@link InputStream#available()}; null to fill chunks fully
     * @param close  whether {@link #close()} closes the channel
     */
    static ChunkReader sequential(ReadableByteChannel channel, InputStream in, boolean close) {
        return new ChunkReader() {
            private boolean eof;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                if (eof) {
                    return -1;
                }
                int total = 0;
                while (dst.hasRemaining()) {
                    if (total > 0 && in != null && in.available() <= 0) {
                        break;
                    }
                    int n = channel.read(dst);
                    if (n < 0) {
                        eof = true;
                        break;
                    }
                    total += n;
                }
                return total == 0 && eof ? -1 : total;
            }

            @Override
            public void close() throws IOException {
                if (close) {
                    channel.close();
                }
            }

            @Override
            public void abort() {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // Only unblocking matters here.
                }
            }
        };
    }
}
