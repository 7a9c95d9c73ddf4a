package io.rdmaflux.connector;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a sink did with a stream that it wrote completely.
 *
 * @param bytes      the number of bytes written
 * @param location   where they are now: the final path, "standard output", or the command
 * @param exitStatus the exit status of the command the bytes went to (always 0, since any other
 *                   status fails the sink); empty for sinks that are not commands
 */
public record SinkResult(long bytes, String location, OptionalInt exitStatus) {

    public SinkResult {
        Objects.requireNonNull(exitStatus, "exitStatus");
    }

    /** A result with no exit status: a file or standard output. */
    public SinkResult(long bytes, String location) {
        this(bytes, location, OptionalInt.empty());
    }
}
