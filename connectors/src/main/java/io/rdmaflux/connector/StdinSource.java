package io.rdmaflux.connector;

import java.io.FileInputStream;

/**
 * Standard input as a source, read through a {@link java.nio.channels.FileChannel} on file
 * descriptor 0
 * ({@link StandardStreams#in}) straight into pooled direct buffers, in large reads (see {@link ChannelSource}).
 *
 * <p>Standard input can be read once: subscribe once. It is not closed at the end of the
 * data; if the stream is cancelled while a read is waiting for input, standard input is closed
 * to unblock that read.
 */
public final class StdinSource {

    private StdinSource() {
    }

    /** Standard input with default options. */
    public static ChannelSource create() {
        return create(SourceOptions.defaults());
    }

    /** Standard input with these options. */
    public static ChannelSource create(SourceOptions options) {
        return ChannelSource.ofStream("standard input", () -> new FileInputStream(StandardStreams.in()), false)
                .withOptions(options);
    }
}
