package io.rdmaflux.connector;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a sink did with a stream that it wrote completely.
 *
 * @param bytes      the number of bytes written
 * @param location   where they are now: the final path, "standard output", or the command
 * @param exitStatus the exit status of the command the bytes went to (always 0, since any other
 *                   status fails the sink); empty for sinks that are not commands
 * @param failures   the parts of the output that could not be written although the stream
 *                   arrived whole, each as {@code "name: reason"} (a directory tree's files that
 *                   failed on either side); empty when everything arrived. Names and reasons may
 *                   come from the peer: sanitize them before printing them on a terminal.
 */
public record SinkResult(long bytes, String location, OptionalInt exitStatus, List<String> failures) {

    public SinkResult {
        Objects.requireNonNull(exitStatus, "exitStatus");
        failures = List.copyOf(failures);
    }

    /** A result with nothing missing and no exit status: a file or standard output. */
    public SinkResult(long bytes, String location) {
        this(bytes, location, OptionalInt.empty(), List.of());
    }

    /** A command's result. */
    public SinkResult(long bytes, String location, OptionalInt exitStatus) {
        this(bytes, location, exitStatus, List.of());
    }

    /** A result with parts missing (a directory tree's failed files). */
    public SinkResult(long bytes, String location, List<String> failures) {
        this(bytes, location, OptionalInt.empty(), failures);
    }

    /** Whether every part arrived (rdcp's "partial transfer" exit otherwise). */
    public boolean complete() {
        return failures.isEmpty();
    }
}
