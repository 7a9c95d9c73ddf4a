package io.rdmaflux.connector;

/**
 * What a sink did with a stream that it wrote completely.
 *
 * @param bytes    the number of bytes written
 * @param location where they are now: the final path, or "standard output"
 */
public record SinkResult(long bytes, String location) {
}
