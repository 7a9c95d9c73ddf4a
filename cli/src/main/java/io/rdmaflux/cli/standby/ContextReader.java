package io.rdmaflux.cli.standby;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Reads a client's context off the wire: a 4-byte big-endian length, then that many bytes (at
 * most {@link StandbyContext#MAX_BYTES}), all within a time; the connection is closed when the
 * time is over, so a client that says nothing cannot hold the standby.
 */
final class ContextReader {

    private ContextReader() {
    }

    /** The context's bytes; IllegalArgumentException when too long, cut short or late. */
    static byte[] read(SocketChannel c, Duration wait) throws IOException {
        Thread deadline = Deadline.after(wait, () -> StandbyProcess.closeQuietly(c));
        try {
            ByteBuffer length = full(c, ByteBuffer.allocate(4));
            int n = length.getInt(0);
            if (n <= 0 || n > StandbyContext.MAX_BYTES) {
                throw new IllegalArgumentException("a context of " + Integer.toUnsignedString(n) + " bytes");
            }
            return full(c, ByteBuffer.allocate(n)).array();
        } catch (IOException e) {
            if (!c.isOpen()) {
                throw new IllegalArgumentException("no context within " + wait.toSeconds() + " s");
            }
            throw e;
        } finally {
            deadline.interrupt();
        }
    }

    private static ByteBuffer full(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IllegalArgumentException("the context is cut short");
            }
        }
        return b;
    }
}
