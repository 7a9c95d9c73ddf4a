package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;

/**
 * Standard output as a sink, written through a {@link FileChannel} on file descriptor 1
 * ({@link StandardStreams#out})
 * straight from the chunks' buffers, on the options' scheduler.
 *
 * <p>Standard output is never closed, even on failure, and {@link System#out} is flushed
 * before the first byte and after the last so that nothing printed through it is interleaved
 * with the data. A reader that goes away (broken pipe) fails the write with a one-line
 * message. Logs and progress must go to standard error. When standard output is a regular
 * file or a block device ({@code rdrecv ... > copy.bin}), {@link SinkOptions#fsync()} syncs it
 * before success is reported, as for a file sink.
 */
public final class StdoutSink {

    private static final String NAME = "standard output";

    private StdoutSink() {
    }

    /** Standard output with default options. */
    public static ChannelSink create() {
        return create(SinkOptions.defaults());
    }

    /** Standard output with these options. */
    public static ChannelSink create(SinkOptions options) {
        return ChannelSink.of(NAME, StandardStreams::outChannel, false)
                .withFlush(System.out::flush)
                .withSync(syncable())
                .withOptions(options);
    }

    /**
     * Whether {@code failure} is standard output's reader going away (broken pipe), as when
     * the output is piped into {@code head}: no failure of the data, and a tool ends quietly
     * then, as {@code cat | head} does.
     */
    public static boolean readerGone(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof ConnectorException ce && ce.reason() == ConnectorException.Reason.BROKEN_PIPE
                    && ce.getMessage() != null && ce.getMessage().startsWith("cannot write " + NAME + ":")) {
                return true;
            }
        }
        return false;
    }

    /** Whether standard output is something fsync applies to (not a pipe, socket or terminal). */
    private static boolean syncable() {
        try {
            int type = (Integer) Files.getAttribute(StandardStreams.path(1), "unix:mode") & 0170000;
            return type == 0100000 || type == 0060000;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
