/**
 * Sources and sinks: where a stream's bytes come from and where they go.
 *
 * <p>A {@link io.rdmaflux.connector.Source} gives a stream as a {@code Flux<Chunk>}; a
 * {@link io.rdmaflux.connector.Sink} consumes one and reports when the bytes are durably handed
 * over. The connectors are files ({@link io.rdmaflux.connector.FileSource},
 * {@link io.rdmaflux.connector.FileSink}), the standard streams
 * ({@link io.rdmaflux.connector.StdinSource}, {@link io.rdmaflux.connector.StdoutSink}) and
 * commands ({@link io.rdmaflux.connector.CommandSource}, {@link io.rdmaflux.connector.CommandSink},
 * configured by {@link io.rdmaflux.connector.CommandOptions}: a command's exit status is part
 * of its stream, and a sink command sees end of input only after the stream completed);
 * {@link io.rdmaflux.connector.ChannelSource} and {@link io.rdmaflux.connector.ChannelSink}
 * adapt any byte channel. Directory trees are in {@code io.rdmaflux.connector.tree}.
 *
 * <p><b>Building a connector</b> (here, in a sub-package or in a plugin jar): write the blocking
 * part, a {@link io.rdmaflux.connector.ChunkReader} or a {@link io.rdmaflux.connector.WriteTarget},
 * and hand it to {@link io.rdmaflux.connector.Source#fromReader} or
 * {@link io.rdmaflux.connector.Sink#toTarget}; the package-private read and write loops behind
 * them give it the bounded buffers, threads, cancellation, error wording and release described
 * below, as they give the built-in connectors.
 *
 * <p><b>Ownership rule</b> (the one {@link io.rdmaflux.buffer.Chunk} states): every chunk is a
 * lease released exactly once by its final owner. A source hands each chunk it emits to its
 * subscriber, who must release it; a sink releases each chunk it receives once its bytes are
 * written. On error and cancel, both sides release what they hold, so pools drain back to zero.
 *
 * <p><b>Threads.</b> Demand reaches sources from the channel's event loops, and chunks reach
 * sinks on them. All blocking I/O here runs on a dedicated scheduler
 * ({@code Schedulers.boundedElastic()} unless configured), never on the thread that requests
 * or delivers.
 */
package io.rdmaflux.connector;
