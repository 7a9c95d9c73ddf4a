package io.rdmaflux.connector;

import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Reads a command's stderr to its end and passes each line on, sanitized and prefixed with the
 * command's name, keeping the last few lines for error messages. Memory is bounded whatever
 * the command writes: lines longer than {@value #MAX_LINE} bytes are cut, and the tail holds
 * {@value #TAIL_LINES} lines of at most {@value #TAIL_LINE} characters.
 *
 * <p>It keeps reading even when the consumer fails: a command whose stderr pipe fills up
 * would stop.
 */
final class StderrDrain implements Runnable {

    private static final Logger log = Loggers.getLogger(StderrDrain.class);

    static final int MAX_LINE = 4096;
    static final int TAIL_LINES = 5;
    static final int TAIL_LINE = 300;

    private final ReadableByteChannel channel;
    private final String prefix;
    private final Consumer<String> out;
    private final ArrayDeque<String> tail = new ArrayDeque<>(TAIL_LINES);
    private final CountDownLatch done = new CountDownLatch(1);

    private final byte[] line = new byte[MAX_LINE];
    private int length;
    private boolean cut;

    StderrDrain(ReadableByteChannel channel, String name, Consumer<String> out) {
        this.channel = channel;
        this.prefix = "[" + name + "] ";
        this.out = out;
    }

    @Override
    public void run() {
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        try {
            while (channel.read(buffer.clear()) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    accept(buffer.get());
                }
            }
            if (length > 0 || cut) {
                emit();
            }
        } catch (IOException e) {
            // Closed by close() after the command was gone; what was read has been passed on.
            log.debug("{}stderr closed: {}", prefix, e.toString());
        } finally {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing more to read either way.
            }
            done.countDown();
        }
    }

    private void accept(byte b) {
        if (b == '\n') {
            emit();
        } else if (length < MAX_LINE) {
            line[length++] = b;
        } else {
            cut = true;
        }
    }

    private void emit() {
        int n = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        String text = RemoteText.sanitize(new String(line, 0, n, StandardCharsets.UTF_8), MAX_LINE) + (cut ? "\u2026" : "");
        length = 0;
        cut = false;
        synchronized (tail) {
            if (!text.isBlank()) {
                if (tail.size() == TAIL_LINES) {
                    tail.removeFirst();
                }
                tail.addLast(RemoteText.sanitize(text, TAIL_LINE));
            }
        }
        try {
            out.accept(prefix + text);
        } catch (RuntimeException e) {
            log.debug("{}stderr line dropped: {}", prefix, e.toString());
        }
    }

    /** Waits up to {@code millis} for the end of stderr; true if it came. */
    boolean await(long millis) {
        try {
            return done.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Unblocks a read that waits on a pipe someone else still holds open. */
    void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Only unblocking matters.
        }
    }

    /** The last lines, joined for a one-line message; empty if stderr had none. */
    String tail() {
        synchronized (tail) {
            return String.join(" / ", tail);
        }
    }
}
