package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;

/**
 * Where a stream's bytes come from: a file, standard input, a command's output, later a
 * directory tree. A source is a description; nothing is opened until {@link #open()}'s Flux
 * is subscribed.
 *
 * <p><b>Ownership.</b> Each {@link Chunk} the Flux emits belongs to the subscriber, who must
 * release it exactly once when its bytes are no longer needed (the channel does so once they
 * have left the host). Sources draw chunks from bounded pools and read only as chunks come
 * back, so a subscriber that holds on to chunks stalls the source rather than growing memory;
 * a subscriber that never releases will see the stream stop, not a leak. Operators that may
 * drop chunks they already hold (concatMap, publishOn, take with a prefetch, ...) hand them to
 * Reactor's discard hook on cancel and error, so put
 * {@code .doOnDiscard(Chunk.class, Chunk::releaseQuietly)} downstream of them (the hook applies
 * to the operators above it).
 *
 * <p><b>Threads.</b> Demand may arrive on any thread, including the channel's event loops.
 * Implementations never block the requesting thread: blocking reads run on a dedicated
 * scheduler and chunks are emitted from there.
 *
 * <p><b>Termination.</b> The Flux completes at the end of the data. It fails with a
 * {@link ConnectorException} (code {@code SOURCE_FAILED}, a one-line message naming the
 * source) when reading fails. On cancel, error and completion the source closes what it
 * opened and returns its buffers.
 *
 * <p><b>Building one.</b> A source of the project's or of a plugin jar is a {@link ChunkReader}
 * (the blocking reads of one opened resource) given to {@link #fromReader}, which adds
 * everything above: the bounded buffers of {@link SourceOptions}, reads off the requesting
 * thread, cancellation that unblocks a waiting read, the error wording and the release of every
 * buffer. {@link FileSource} and the command sources are built the same way.
 */
public interface Source {

    /**
     * The stream's bytes. Each subscription opens the underlying resource afresh (for files;
     * standard input can be read only once) and closes it when the Flux terminates or is
     * cancelled.
     */
    Flux<Chunk> open();

    /** A name for the stream, such as a file's name, when it has one. */
    Optional<String> name();

    /** The number of bytes the stream will carry, when known in advance (for progress and ETA). */
    OptionalLong size();

    /** What this source reads, for messages: a path, or "standard input". */
    String describe();

    /** {@code base} with this source's name and size set, for {@code FluxSender.send}. */
    default StreamMetadata metadata(StreamMetadata base) {
        StreamMetadata m = base;
        if (name().isPresent()) {
            m = m.with(StreamMetadata.NAME, name().get());
        }
        if (size().isPresent()) {
            m = m.with(StreamMetadata.SIZE, Long.toString(size().getAsLong()));
        }
        return m;
    }

    /** This source's name and size as stream metadata. */
    default StreamMetadata metadata() {
        return metadata(StreamMetadata.empty());
    }

    /**
     * This source with {@code operator} applied to the stream of each {@link #open()}; its name,
     * size, description and metadata stay this source's. For wrappers that change how a stream
     * ends (a held end of input, a guard against a signal), not what it carries.
     */
    default Source transformStream(UnaryOperator<Flux<Chunk>> operator) {
        Source self = this;
        return new Source() {
            @Override
            public Flux<Chunk> open() {
                return operator.apply(self.open());
            }

            @Override
            public Optional<String> name() {
                return self.name();
            }

            @Override
            public OptionalLong size() {
                return self.size();
            }

            @Override
            public String describe() {
                return self.describe();
            }

            @Override
            public StreamMetadata metadata(StreamMetadata base) {
                return self.metadata(base);
            }
        };
    }

    /**
     * {@code description}'s stream, read through the readers {@code opener} opens, one per
     * subscription, with {@link SourceOptions#defaults()}.
     *
     * @see #fromReader(String, Callable, SourceOptions)
     */
    static Source fromReader(String description, Callable<? extends ChunkReader> opener) {
        return fromReader(description, opener, SourceOptions.defaults());
    }

    /**
     * A source whose bytes a {@link ChunkReader} reads: the way to build a source outside this
     * package with the guarantees of the built-in ones. {@code opener} runs on the options'
     * scheduler when the Flux is subscribed (it may block: connect, open a download); the
     * reader's {@link ChunkReader#read reads} run there too, one at a time, only while the
     * subscriber has demand and one of the options' buffers is free. On cancel a read under way
     * is {@linkplain ChunkReader#abort() aborted}; on completion, error and cancel the reader is
     * closed and every buffer returns to its pool once its chunk is released. A failure of
     * {@code opener} or of a read fails the Flux with a {@link ConnectorException}
     * (SOURCE_FAILED, "cannot read DESCRIPTION: reason"). Name and size are unknown unless
     * set with {@link #withName} and {@link #withSize}.
     *
     * @param description what is read, for messages ("s3://bucket/key")
     * @param opener      opens the resource afresh for each subscription
     */
    static Source fromReader(String description, Callable<? extends ChunkReader> opener, SourceOptions options) {
        return new ReaderSource(description, opener, options, null, -1);
    }

    /**
     * This source with {@code name} as the stream's name (for the metadata a sender announces);
     * everything else is this source's.
     */
    default Source withName(String name) {
        Source self = this;
        return new Source() {
            @Override
            public Flux<Chunk> open() {
                return self.open();
            }

            @Override
            public Optional<String> name() {
                return Optional.ofNullable(name);
            }

            @Override
            public OptionalLong size() {
                return self.size();
            }

            @Override
            public String describe() {
                return self.describe();
            }
        };
    }

    /**
     * This source announcing {@code size} bytes in advance (a negative size: unknown), for
     * progress and the receiver's checks; everything else is this source's. The size is a
     * promise the data must keep: a receiver may refuse a stream of another length.
     */
    default Source withSize(long size) {
        Source self = this;
        return new Source() {
            @Override
            public Flux<Chunk> open() {
                return self.open();
            }

            @Override
            public Optional<String> name() {
                return self.name();
            }

            @Override
            public OptionalLong size() {
                return size >= 0 ? OptionalLong.of(size) : OptionalLong.empty();
            }

            @Override
            public String describe() {
                return self.describe();
            }
        };
    }

    /**
     * The source a command-line argument names, as rdma-pipe's tools read it: standard input
     * when {@code argument} is null or {@code "-"}, otherwise the file at that path.
     *
     * @throws ConnectorException when the file is missing, a directory, or unreadable
     */
    static Source fileOrStdin(String argument) {
        if (argument == null || argument.equals("-")) {
            return StdinSource.create();
        }
        return FileSource.of(Path.of(argument));
    }
}
