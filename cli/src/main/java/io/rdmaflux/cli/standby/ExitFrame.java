package io.rdmaflux.cli.standby;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * The served call's link to its client: the exit frame ({@code X}, the 4-byte status, then the
 * final offsets of fds 0, 1 and 2 as 8 bytes each, -1 to leave one alone; a client that reads
 * only the first two offsets still works, and leaves fd 2's offset behind), and a watcher that
 * raises SIGTERM on this process when the client goes away before it (killed: its socket
 * closes), so the call ends as a killed cold process would, its partial output removed.
 */
final class ExitFrame {

    /**
     * The frame's size: X, status, three offsets. fd 2 too: a {@code 2>log} is a regular file
     * whose offset the next command writing there must find after this call's messages.
     */
    static final int SIZE = 1 + 4 + 8 + 8 + 8;

    private final SocketChannel client;
    private final ClientStreams streams;
    private final AtomicBoolean sent = new AtomicBoolean();

    ExitFrame(SocketChannel client, ClientStreams streams) {
        this.client = client;
        this.streams = streams;
    }

    /** Starts the watcher on the client's end of the connection. */
    void watch() {
        Thread t = new Thread(this::watchClient, "standby-client");
        t.setDaemon(true);
        t.start();
    }

    private void watchClient() {
        ByteBuffer b = ByteBuffer.allocate(64);
        try {
            while (client.read(b.clear()) >= 0) {
                // a client sends nothing after its context: whatever comes is dropped
            }
        } catch (IOException e) {
            // reset or closed: gone as well
        }
        if (!sent.get()) {
            try {
                Signal.raise(new Signal("TERM"));
            } catch (IllegalArgumentException e) {
                Runtime.getRuntime().halt(143);
            }
        }
    }

    /** Sends the frame for exit status {@code code}, once; the client exits with it. */
    void send(int code) {
        if (!sent.compareAndSet(false, true)) {
            return;
        }
        try {
            StandbyProcess.write(client, frame(code, streams.finalOffset(0), streams.finalOffset(1), streams.finalOffset(2)));
        } catch (IOException e) {
            // the client is gone: no one waits for the status
        }
    }

    /** The frame's bytes. */
    static byte[] frame(int code, long pos0, long pos1, long pos2) {
        return ByteBuffer.allocate(SIZE).put((byte) 'X').putInt(code).putLong(pos0).putLong(pos1).putLong(pos2).array();
    }
}
