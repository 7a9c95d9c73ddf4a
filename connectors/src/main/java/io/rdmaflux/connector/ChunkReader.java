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

    /** Positional reads of a regular file: large, never short except at the end. */
    static ChunkReader positional(FileChannel channel) {
        return new ChunkReader() {
            private long position;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                int total = 0;
                while (dst.hasRemaining()) {
                    int n = channel.read(dst, position);
                    if (n < 0) {
                        break;
                    }
                    position += n;
                    total += n;
                }
                return total == 0 && dst.hasRemaining() ? -1 : total;
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
