package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Any byte channel as a sink, written sequentially on the options' scheduler: standard output
 * is one. Nothing can be taken back from a channel, so on failure the error says how many
 * bytes had been written.
 */
public final class ChannelSink implements Sink {

    private final String description;
    private final Callable<? extends WritableByteChannel> opener;
    private final boolean close;
    private final Runnable flush;
    private final SinkOptions options;

    private ChannelSink(String description, Callable<? extends WritableByteChannel> opener, boolean close,
                        Runnable flush, SinkOptions options) {
        this.description = description;
        this.opener = opener;
        this.close = close;
        this.flush = flush;
        this.options = options;
    }

    /**
     * A sink over channels {@code opener} opens, one per write (it runs on the scheduler and
     * may block).
     *
     * @param close whether the channel is closed when the write ends (success, error or
     *              cancel); false for standard output
     */
    public static ChannelSink of(String description, Callable<? extends WritableByteChannel> opener, boolean close) {
        return new ChannelSink(Objects.requireNonNull(description), Objects.requireNonNull(opener), close,
                () -> { }, SinkOptions.defaults());
    }

    /** This sink running {@code flush} before the first byte and after the last (or on failure). */
    public ChannelSink withFlush(Runnable flush) {
        return new ChannelSink(description, opener, close, Objects.requireNonNull(flush), options);
    }

    /** This sink with other options ({@link SinkOptions#fsync()} does not apply). */
    public ChannelSink withOptions(SinkOptions options) {
        return new ChannelSink(description, opener, close, flush, Objects.requireNonNull(options));
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        Objects.requireNonNull(data, "data");
        return Mono.defer(() -> WriteLoop.write(new Target(), data, options));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return "ChannelSink[" + description + "]";
    }

    private final class Target implements WriteTarget {

        private WritableByteChannel channel;
        private long written;

        @Override
        public void open() throws IOException {
            flush.run();
            try {
                channel = opener.call();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                written += channel.write(src);
            }
        }

        @Override
        public String commit() throws IOException {
            flush.run();
            if (close) {
                channel.close();
            }
            return description;
        }

        @Override
        public String abort() {
            if (channel == null) {
                return "nothing was written";
            }
            try {
                flush.run();
            } catch (RuntimeException ignored) {
                // Best effort.
            }
            if (close) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // Nothing else to clean up.
                }
            }
            return written + " bytes were already written to " + description;
        }

        @Override
        public String describe() {
            return description;
        }
    }
}
