package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import reactor.core.publisher.Flux;

/** What {@link Source#fromReader} returns: a {@link ReadLoop} over the readers a plugin opens. */
final class ReaderSource implements Source {

    private final String description;
    private final Callable<? extends ChunkReader> opener;
    private final SourceOptions options;
    private final String name;
    private final long size;

    ReaderSource(String description, Callable<? extends ChunkReader> opener, SourceOptions options, String name,
                 long size) {
        this.description = Objects.requireNonNull(description, "description");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.options = Objects.requireNonNull(options, "options");
        this.name = name;
        this.size = size;
    }

    @Override
    public Flux<Chunk> open() {
        return ReadLoop.flux(description, () -> Objects.requireNonNull(opener.call(), "the opener returned null"),
                options);
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
    public Source withName(String name) {
        return new ReaderSource(description, opener, options, name, size);
    }

    @Override
    public Source withSize(long size) {
        return new ReaderSource(description, opener, options, name, size);
    }

    @Override
    public String toString() {
        return "ReaderSource[" + description + "]";
    }
}
