package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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
    private final boolean sync;
    private final SinkOptions options;

    private ChannelSink(String description, Callable<? extends WritableByteChannel> opener, boolean close,
                        Runnable flush, boolean sync, SinkOptions options) {
        this.description = description;
        this.opener = opener;
        this.close = close;
        this.flush = flush;
        this.sync = sync;
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
                () -> { }, false, SinkOptions.defaults());
    }

    /** This sink running {@code flush} before the first byte and after the last (or on failure). */
    public ChannelSink withFlush(Runnable flush) {
        return new ChannelSink(description, opener, close, Objects.requireNonNull(flush), sync, options);
    }

    /**
     * This sink syncing its channel (a {@link FileChannel} on a regular file or a block
     * device) before it reports success, when its options ask for {@link SinkOptions#fsync()}.
     */
    public ChannelSink withSync(boolean sync) {
        return new ChannelSink(description, opener, close, flush, sync, options);
    }

    /** This sink with other options ({@link SinkOptions#fsync()} applies only {@linkplain #withSync with sync}). */
    public ChannelSink withOptions(SinkOptions options) {
        return new ChannelSink(description, opener, close, flush, sync, Objects.requireNonNull(options));
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
            if (sync && options.fsync() && channel instanceof FileChannel file) {
                file.force(true);
            }
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
