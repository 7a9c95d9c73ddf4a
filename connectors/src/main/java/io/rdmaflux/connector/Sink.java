package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Where a stream's bytes go: a file, standard output, a command's input, later a directory
 * tree. A sink is a description; nothing is opened until the Mono {@link #write} returns is
 * subscribed.
 *
 * <p><b>Ownership.</b> The sink owns every {@link Chunk} it receives and releases each exactly
 * once: after its bytes are written, or when it gives up (error, cancel). Chunks it never
 * requested stay with the publisher. The sink requests only a small, fixed number of chunks
 * ahead of its writes, so its memory is bounded by that many chunks whatever the stream size.
 *
 * <p><b>Threads.</b> Chunks may arrive on the channel's event loops; the sink never writes on
 * the delivering thread but on a dedicated scheduler.
 *
 * <p><b>Completion.</b> The Mono completes only when the data is durably handed over: a file
 * written, closed and renamed to its final name (and synced when asked), standard output
 * flushed. When the data fails or the Mono is cancelled, the sink cleans up (a file sink
 * removes its partial file) and fails with a one-line message that says what happened to the
 * output: a {@link ConnectorException} (code {@code SINK_FAILED}) for its own failures, or
 * the upstream {@link io.rdmaflux.error.RdmaFluxException} with its code kept and the
 * clean-up appended to its message.
 *
 * <p><b>Building one.</b> A sink of the project's or of a plugin jar is a {@link WriteTarget}
 * (the blocking writes to one output) given to {@link #toTarget}, which adds everything above:
 * the bounded prefetch of {@link SinkOptions}, writes off the delivering thread, the release of
 * every chunk, cancellation, clean-up and the error wording. {@link FileSink} and the command
 * sinks are built the same way.
 */
public interface Sink {

    /**
     * Writes the stream. Subscribing starts the write (a file sink creates its file right away,
     * so a path that cannot be written fails before any data is requested).
     *
     * @param data     the stream's chunks; the sink subscribes once
     * @param metadata what the sender said about the stream (name, size); sinks may use it,
     *                 for example to name the output or check free space
     */
    Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata);

    /** Writes a stream that has no metadata. */
    default Mono<SinkResult> write(Publisher<Chunk> data) {
        return write(data, StreamMetadata.empty());
    }

    /** What this sink writes to, for messages: a path, or "standard output". */
    String describe();

    /**
     * {@link #toTarget(String, Function, SinkOptions)} with {@link SinkOptions#defaults()}.
     */
    static Sink toTarget(String description, Function<? super StreamMetadata, ? extends WriteTarget> targets) {
        return toTarget(description, targets, SinkOptions.defaults());
    }

    /**
     * A sink that writes each stream to a fresh {@link WriteTarget}: the way to build a sink
     * outside this package with the guarantees of the built-in ones. For each write,
     * {@code targets} is given the stream's metadata and makes the target, on the options'
     * scheduler when the write is subscribed (it may block); the target is then opened,
     * written one chunk at a time while at most {@link SinkOptions#prefetch()} chunks wait,
     * and committed when the data completes. Every chunk is released exactly once, whatever
     * happens. When the data fails, the write is cancelled or the process ends
     * ({@link #abandonAll}), a write under way is {@linkplain WriteTarget#interrupt()
     * interrupted} and the target {@linkplain WriteTarget#abort() aborted}. A failure of
     * {@code targets} or of the target fails the Mono with a {@link ConnectorException}
     * (SINK_FAILED, "cannot write DESCRIPTION: reason"); an upstream failure keeps its code,
     * with what {@code abort} said appended.
     *
     * @param description what is written, for messages before a target exists ("s3://bucket/key")
     * @param targets     makes the output of one stream; may use its name and size
     */
    static Sink toTarget(String description, Function<? super StreamMetadata, ? extends WriteTarget> targets,
                         SinkOptions options) {
        return new TargetSink(description, targets, options);
    }

    /**
     * Cancels every sink write still under way in this process and waits up to {@code timeout}
     * until each has cleaned up (partial files removed, appends cut back, commands stopped).
     * A JVM exit does the same on its own, in a shutdown hook, with a 2-second bound; call this
     * before ending the process in a way that runs no hooks (a signal's default action,
     * {@link Runtime#halt}).
     *
     * @return whether every write had cleaned up in time
     */
    static boolean abandonAll(Duration timeout) {
        return OpenWrites.abandonAll(timeout);
    }

    /**
     * {@link #abandonAll(Duration)} for a tool about to exit, which must wait for a commit
     * under way longer than a JVM's shutdown hook does: a write cancelled in the middle of its
     * commit (a failure after the stream's verified END, while the file is synced) finishes the
     * commit, or its clean-up, before the process may end, within {@code commitTimeout}. Other
     * writes are waited for 2 s at most, as by the hook. When the wait takes over a second,
     * {@code note} is told once what is waited for.
     *
     * @return whether every write had committed or cleaned up in time
     */
    static boolean abandonAll(Duration commitTimeout, Consumer<String> note) {
        return OpenWrites.abandonAll(commitTimeout, note);
    }

    /**
     * The sink a command-line argument names, as rdma-pipe's tools take it: standard output
     * when {@code argument} is null or {@code "-"}, otherwise the file at that path (replaced
     * if it exists; devices, FIFOs and the like, such as {@code /dev/null}, are written in place).
     *
     * @throws ConnectorException when the path cannot be a file's (a directory, or a missing
     *                            parent directory)
     */
    static Sink fileOrStdout(String argument) {
        return fileOrStdout(argument, SinkOptions.defaults());
    }

    /** {@link #fileOrStdout(String)} with these options. */
    static Sink fileOrStdout(String argument, SinkOptions options) {
        if (argument == null || argument.equals("-")) {
            return StdoutSink.create(options);
        }
        return FileSink.of(Path.of(argument), options);
    }
}
