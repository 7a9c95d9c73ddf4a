package io.rdmaflux.connector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Blocking reads of one opened resource, the part of a source that knows the resource: a
 * source's read loop calls it one call at a time, always on the source's scheduler and never
 * from two threads at once. Implement it (for a plugin's own source, an object store's
 * download, say) and give {@link Source#fromReader} a way to open one: the loop adds what every
 * built-in source guarantees (bounded buffers, cancellation, error wording, release).
 *
 * <pre>{@code
 * Source s3 = Source.fromReader("s3://bucket/key", () -> {
 *     InputStream in = client.getObject(bucket, key);   // runs on the scheduler, may block
 *     return ChunkReader.sequential(Channels.newChannel(in), in, true);
 * });
 * }</pre>
 */
public interface ChunkReader {

    /**
     * Fills {@code dst} from its position, blocking until at least one byte arrived. An
     * exception fails the source: an I/O error becomes a one-line {@link ConnectorException}
     * (SOURCE_FAILED, "cannot read WHAT: reason"); a {@link ConnectorException} is kept as it is.
     *
     * @return the bytes read, or -1 at the end of the data when nothing was read
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Closes what was opened (or leaves it open when it is not ours, such as stdin). Called
     * exactly once, after the end of the data, an error or a cancel; an exception is only logged.
     */
    void close() throws IOException;

    /**
     * Unblocks a read that may wait indefinitely (a pipe, a terminal), from another thread;
     * called on cancel while a read is in progress. Regular files need nothing.
     */
    default void abort() {
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
