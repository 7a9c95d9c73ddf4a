package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import reactor.core.publisher.Flux;

/**
 * Any byte stream as a source: a channel or an input stream opened on subscription, read
 * sequentially on the options' scheduler. Standard input is one. Size unknown unless given.
 *
 * <p>Reads are large: after a read returns, the source keeps reading into the same chunk while
 * the stream reports bytes {@linkplain InputStream#available() available} (or, for a bare
 * channel, until the chunk is full), so a fast producer yields whole chunks and a slow one is
 * not held back waiting for a chunk to fill.
 */
public final class ChannelSource implements Source {

    private final String description;
    private final Callable<ChunkReader> opener;
    private final String name;
    private final long size;
    private final SourceOptions options;

    private ChannelSource(String description, Callable<ChunkReader> opener, String name, long size,
                          SourceOptions options) {
        this.description = description;
        this.opener = opener;
        this.name = name;
        this.size = size;
        this.options = options;
    }

    /**
     * A source over input streams {@code opener} opens, one per subscription (it runs on the
     * scheduler and may block). A {@link FileInputStream} is read through its channel straight
     * into the direct buffers.
     *
     * @param close whether the stream is closed when the Flux terminates (not for stdin)
     */
    public static ChannelSource ofStream(String description, Callable<? extends InputStream> opener, boolean close) {
        Objects.requireNonNull(opener, "opener");
        return new ChannelSource(description, () -> {
            InputStream in = opener.call();
            ReadableByteChannel ch = in instanceof FileInputStream f ? f.getChannel() : Channels.newChannel(in);
            return ChunkReader.sequential(ch, in, close);
        }, null, -1, SourceOptions.defaults());
    }

    /**
     * A source over channels {@code opener} opens, one per subscription (it runs on the
     * scheduler and may block). Each chunk is filled completely, except the last.
     *
     * @param close whether the channel is closed when the Flux terminates
     */
    public static ChannelSource ofChannel(String description, Callable<? extends ReadableByteChannel> opener,
                                          boolean close) {
        Objects.requireNonNull(opener, "opener");
        return new ChannelSource(description, () -> ChunkReader.sequential(opener.call(), null, close),
                null, -1, SourceOptions.defaults());
    }

    /** This source with a name for the stream metadata. */
    public ChannelSource withName(String name) {
        return new ChannelSource(description, opener, name, size, options);
    }

    /** This source with a size announced in advance (-1: unknown). */
    public ChannelSource withSize(long size) {
        return new ChannelSource(description, opener, name, size, options);
    }

    /** This source with other options. */
    public ChannelSource withOptions(SourceOptions options) {
        return new ChannelSource(description, opener, name, size, Objects.requireNonNull(options));
    }

    @Override
    public Flux<Chunk> open() {
        return ReadLoop.flux(description, opener, options);
    }

    @Override
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    @Override
    public OptionalLong size() {
        return size >= 0 ? OptionalLong.of(size) : OptionalLong.empty();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return "ChannelSource[" + description + "]";
    }
}
