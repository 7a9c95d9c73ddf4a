package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import reactor.core.publisher.Flux;

/**
 * A stream through something that turns it into another stream, as a program in the middle of
 * a shell pipe does: a command such as {@code tr a-z A-Z} or {@code tee copy}. A filter is a
 * description; nothing runs until the Flux {@link #apply} returns is subscribed.
 *
 * <p><b>Ownership.</b> The filter owns every chunk of its input it receives and releases each
 * exactly once, as a {@link Sink} does; the chunks it emits belong to its subscriber, as a
 * {@link Source}'s do. Its memory is bounded by a few chunks on each side, whatever the stream.
 *
 * <p><b>Termination.</b> The output completes when the filter has produced everything it will
 * (for a command: its output ended and it exited with status 0). It fails with the input's
 * error, its code kept, when the input fails, and with a {@link ConnectorException} when the
 * filter itself fails. Cancelling the output cancels the input.
 */
public interface Filter {

    /**
     * The stream {@code input} becomes. Each subscription runs the filter afresh and subscribes
     * to {@code input} once.
     */
    Flux<Chunk> apply(Flux<Chunk> input);

    /** What this filter runs, for messages: the command. */
    String describe();
}
