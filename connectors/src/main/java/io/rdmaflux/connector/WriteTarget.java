package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.OptionalInt;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Blocking writes to one output, driven by the connectors' write loop one call at a time on the
 * options' scheduler, never from two threads at once (except {@link #interrupt()}). Implement it
 * and give {@link Sink#toTarget} a way to make one: the sink built on it gets the loop's
 * ownership, cancel and error handling for free, as the file, command and tree sinks do.
 *
 * <p>A target that throws a {@link io.rdmaflux.error.RdmaFluxException} (rather than an I/O
 * error) keeps that exception's code in the sink's failure, with what {@link #abort()} said
 * appended; any other exception is classified as the sink's own I/O failure.
 */
public interface WriteTarget {

    /** Creates or opens the output. */
    void open() throws IOException;

    /** Writes all of {@code src}. */
    void write(ByteBuffer src) throws IOException;

    /** Makes the output final (close, rename, flush); returns where the bytes are. */
    String commit() throws IOException;

    /**
     * Gives up: closes and removes partial output where that is possible. Never throws.
     *
     * @return what became of the output, for the error message ("partial file removed"), or
     *         an empty string when there is nothing to add
     */
    String abort();

    /**
     * Makes a {@link #write} or {@link #commit} that may wait indefinitely (a pipe whose reader
     * stopped reading) return, from another thread, because the stream failed or was
     * cancelled; {@link #abort} follows. Outputs that never wait for long need nothing.
     */
    default void interrupt() {
    }

    /** After {@link #commit}: the exit status of the command written to, if the output is one. */
    default OptionalInt exitStatus() {
        return OptionalInt.empty();
    }

    /** The output, for messages. */
    String describe();

    /**
     * A Mono that, when subscribed, opens {@code target} and writes {@code data} to it with the
     * bound and threads {@link SinkOptions} describes, as the file sink does.
     */
    static Mono<SinkResult> run(WriteTarget target, Publisher<Chunk> data, SinkOptions options) {
        return WriteLoop.write(target, data, options);
    }
}
