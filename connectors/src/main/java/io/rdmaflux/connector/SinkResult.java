package io.rdmaflux.connector;

import java.util.List;

/**
 * What a sink did with a stream that it wrote completely.
 *
 * @param bytes    the number of bytes written
 * @param location where they are now: the final path, or "standard output"
 * @param failures the parts of the output that could not be written although the stream
 *                 arrived whole, each as {@code "name: reason"} (a directory tree's files that
 *                 failed on either side); empty when everything arrived. Names and reasons may
 *                 come from the peer: sanitize them before printing them on a terminal.
 */
public record SinkResult(long bytes, String location, List<String> failures) {

    public SinkResult {
        failures = List.copyOf(failures);
    }

    /** A result with nothing missing. */
    public SinkResult(long bytes, String location) {
        this(bytes, location, List.of());
    }

    /** Whether every part arrived (rdcp's "partial transfer" exit otherwise). */
    public boolean complete() {
        return failures.isEmpty();
    }
}
