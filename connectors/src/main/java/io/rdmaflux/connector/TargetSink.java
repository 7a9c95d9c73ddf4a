package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/** What {@link Sink#toTarget} returns: a {@link WriteLoop} over a fresh target for each write. */
final class TargetSink implements Sink {

    private final String description;
    private final Function<? super StreamMetadata, ? extends WriteTarget> targets;
    private final SinkOptions options;

    TargetSink(String description, Function<? super StreamMetadata, ? extends WriteTarget> targets,
               SinkOptions options) {
        this.description = Objects.requireNonNull(description, "description");
        this.targets = Objects.requireNonNull(targets, "targets");
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(metadata, "metadata");
        return Mono.defer(() -> WriteLoop.write(new Deferred(metadata), data, options));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return "TargetSink[" + description + "]";
    }

    /**
     * The target made inside {@link #open()}, on the write loop's scheduler: a factory that
     * blocks or fails then does so where the built-in sinks open their outputs, and its failure
     * gets the same wording and clean-up (the data is subscribed and its chunks released).
     */
    private final class Deferred implements WriteTarget {

        private final StreamMetadata metadata;
        /** Set in the drain; read by {@link #interrupt()} from another thread. */
        private volatile WriteTarget target;

        Deferred(StreamMetadata metadata) {
            this.metadata = metadata;
        }

        @Override
        public void open() throws IOException {
            WriteTarget t = Objects.requireNonNull(targets.apply(metadata), "the target factory returned null");
            target = t;
            t.open();
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            target.write(src);
        }

        @Override
        public String commit() throws IOException {
            return target.commit();
        }

        @Override
        public String abort() {
            WriteTarget t = target;
            return t == null ? "" : t.abort();
        }

        @Override
        public void interrupt() {
            WriteTarget t = target;
            if (t != null) {
                t.interrupt();
            }
        }

        @Override
        public OptionalInt exitStatus() {
            WriteTarget t = target;
            return t == null ? OptionalInt.empty() : t.exitStatus();
        }

        @Override
        public String describe() {
            WriteTarget t = target;
            return t == null ? description : t.describe();
        }
    }
}
