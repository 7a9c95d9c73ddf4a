package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A warm agent's session reached through a forwarded socket ({@link WarmRoute}), seen as the
 * process an ssh command would be: what is written to its input goes to the session raw, and
 * its end is a shutdown of our side's writing; the session's frames ({@code O} stdout,
 * {@code E} stderr, each a type byte, a 4-byte length and the bytes; {@code X} the exit status)
 * are its output, error output and exit status. Closing the socket is its destroy; a session
 * that ends without its status exits 255, as ssh does when the connection is lost.
 */
final class WarmSessionProcess extends Process {

    /** The exit status of a session whose connection ended without one (ssh's for a lost connection). */
    static final int LOST = 255;
    private static final int MAX_FRAME = 1 << 16;

    private final SocketChannel channel;
    private final ChunkStream stdout = new ChunkStream();
    private final ChunkStream stderr = new ChunkStream();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final CompletableFuture<Process> exited = exit.thenApply(s -> this);
    private final OutputStream stdin;
    private volatile int status = LOST;

    /** Starts reading the session's frames on a thread of its own; {@code name} names it. */
    WarmSessionProcess(SocketChannel channel, String name) {
        this.channel = channel;
        this.stdin = new Input(channel, name);
        Thread reader = new Thread(this::demultiplex, name + "-frames");
        reader.setDaemon(true);
        reader.start();
    }

    private void demultiplex() {
        ByteBuffer head = ByteBuffer.allocate(5);
        try {
            while (true) {
                head.clear();
                if (!fill(head)) {
                    break;
                }
                head.flip();
                byte type = head.get();
                int length = head.getInt();
                if (length < 0 || length > MAX_FRAME) {
                    break;   // not the warm agent's framing: the session is lost
                }
                ByteBuffer body = ByteBuffer.allocate(length);
                if (!fill(body)) {
                    break;
                }
                byte[] bytes = body.array();
                switch (type) {
                    case 'O' -> stdout.add(bytes);
                    case 'E' -> stderr.add(bytes);
                    case 'X' -> {
                        if (length == 4) {
                            status = ByteBuffer.wrap(bytes).getInt() & 0xff;
                        }
                    }
                    default -> { }
                }
            }
        } catch (IOException | InterruptedException e) {
            // Closed (destroy) or lost: the status says which, as ssh's would.
        } finally {
            closeQuietly();
            stdout.end();
            stderr.end();
            exit.complete(status);
        }
    }

    /** Reads until {@code b} is full; false at the end of the stream. */
    private boolean fill(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing what is gone.
        }
    }

    @Override
    public OutputStream getOutputStream() {
        return stdin;
    }

    @Override
    public InputStream getInputStream() {
        return stdout;
    }

    @Override
    public InputStream getErrorStream() {
        return stderr;
    }

    @Override
    public int waitFor() throws InterruptedException {
        try {
            return exit.get();
        } catch (ExecutionException e) {
            return LOST;
        }
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            exit.get(timeout, unit);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    @Override
    public int exitValue() {
        Integer s = exit.getNow(null);
        if (s == null) {
            throw new IllegalThreadStateException("the warm agent's session has not ended");
        }
        return s;
    }

    @Override
    public boolean isAlive() {
        return !exit.isDone();
    }

    @Override
    public CompletableFuture<Process> onExit() {
        return exited;
    }

    /** Ends the session: the agent there sees its input end and the connection close, and tears its job down. */
    @Override
    public void destroy() {
        closeQuietly();
    }

    @Override
    public Process destroyForcibly() {
        closeQuietly();
        return this;
    }

    /** No process here: the session runs in the warm agent on the other host. */
    @Override
    public long pid() {
        throw new UnsupportedOperationException("a warm agent's session is no local process");
    }

    /**
     * The session's input. Writes go out on a thread of this stream's own, in order: a blocking
     * write on an interrupted thread (Reactor interrupts a cancelled task's) would close the
     * socket and lose the session. {@link #close} ends the input (a shutdown of our side's
     * writing), after what was written before it.
     */
    private static final class Input extends OutputStream {
        private final SocketChannel channel;
        private final ExecutorService writer;
        private boolean closed;

        Input(SocketChannel channel, String name) {
            this.channel = channel;
            this.writer = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name + "-input");
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (closed) {
                throw new IOException("the warm agent's session input is closed");
            }
            ByteBuffer copy = ByteBuffer.wrap(b.clone(), off, len);
            writer.execute(() -> {
                try {
                    while (copy.hasRemaining()) {
                        channel.write(copy);
                    }
                } catch (IOException e) {
                    // The session is gone; its end reports it.
                }
            });
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            writer.execute(() -> {
                try {
                    channel.shutdownOutput();
                } catch (IOException e) {
                    // Already closed.
                }
            });
            writer.shutdown();
        }
    }

    /** An input stream of the chunks one demultiplexer adds, ended once. */
    private static final class ChunkStream extends InputStream {
        private static final byte[] END = new byte[0];
        /** Bounded: a reader that lags holds the demultiplexer, and so the session, back. */
        private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>(256);
        private byte[] current;
        private int at;
        private boolean ended;

        void add(byte[] chunk) throws InterruptedException {
            if (chunk.length > 0) {
                chunks.put(chunk);
            }
        }

        void end() {
            // Never blocks the ending: a full queue of a reader that stopped reading is dropped.
            if (!chunks.offer(END)) {
                chunks.clear();
                chunks.offer(END);
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (current == null || at == current.length) {
                if (ended) {
                    return -1;
                }
                try {
                    current = chunks.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while reading the warm agent's session");
                }
                at = 0;
                if (current == END) {
                    ended = true;
                    return -1;
                }
            }
            int n = Math.min(len, current.length - at);
            System.arraycopy(current, at, b, off, n);
            at += n;
            return n;
        }

        @Override
        public int available() {
            return 0;   // unknown without waiting: a read may block until the next frame
        }
    }
}
