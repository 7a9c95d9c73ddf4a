package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;

/**
 * A command's standard output as a source, such as {@code zfs send pool/fs@snap}: each
 * subscription runs the command afresh and emits what it writes.
 *
 * <p><b>The exit status is part of the stream.</b> The Flux completes only when the command's
 * output ended <em>and</em> the command exited with status 0. A non-zero status or death by a
 * signal fails it, even after every byte the command wrote was emitted, with a
 * {@link ConnectorException} (code {@code SOURCE_FAILED}, reason {@code IO}, the
 * {@linkplain ConnectorException#exitStatus() exit status}) whose one-line message names the
 * command, its status or signal and its last stderr lines:
 * {@code command 'zfs send tank@x' exited with status 1: cannot open 'tank@x': dataset does not exist}.
 * A producer that died is never mistaken for a clean end, which a shell pipe into a sender
 * cannot tell apart. After the output ends, the stream waits for the command to exit, however
 * long that takes: that is still the command's work.
 *
 * <p><b>Running.</b> The command runs with this process's environment plus
 * {@link CommandOptions#environment()}, in its own process group and session (through
 * {@code setsid}; Linux with util-linux), with standard input from {@code /dev/null} unless
 * {@link #withInput(Path)} names a file. Its stderr is passed on line by line, sanitized and
 * prefixed ({@code [zfs] ...}), never mixed into the data; see {@link CommandOptions#stderr()}.
 * An argument vector's program must be found on the PATH (or at its path), or the stream fails
 * before anything runs; a shell command that is not found fails with status 127.
 *
 * <p><b>Ending.</b> On cancel the command's whole process group gets SIGTERM, then SIGKILL
 * after {@link CommandOptions#grace()}; when this JVM exits or dies (even by SIGKILL) the group
 * gets SIGKILL from the command's guard; when the command fails by itself, whatever it left
 * running in its group is killed. When it exits with status 0, what it left running in its
 * group may finish for up to {@link CommandOptions#linger()}; what still runs then is killed and
 * fails the stream ({@code SOURCE_FAILED}, reason {@code IO}, exit status 0). The same linger
 * bounds the end of its output: what still holds it open then (a background job, as in
 * {@code sleep 600 & echo hi}) is killed, and the stream fails the same way, or with the
 * command's status when that was not 0. Nothing it started in its group is left behind. See {@link Source} for ownership and threads, and
 * {@link SourceOptions} for the memory bound: reads, waits and the stderr drain all run on
 * the options' scheduler.
 *
 * <pre>{@code
 * Source source = CommandSource.shell("zfs send -I tank/fs@a tank/fs@b");
 * FluxSender.create().host(h).port(p).key(k)
 *         .send(source.metadata(), session -> source.open());
 * }</pre>
 */
public final class CommandSource implements Source {

    private final CommandLine command;
    private final Path input;
    private final CommandOptions options;
    private final SourceOptions sourceOptions;
    private final Termination.GraceWait graceWait;

    private CommandSource(CommandLine command, Path input, CommandOptions options, SourceOptions sourceOptions) {
        this(command, input, options, sourceOptions, Termination.GraceWait.REAL);
    }

    private CommandSource(CommandLine command, Path input, CommandOptions options, SourceOptions sourceOptions,
                          Termination.GraceWait graceWait) {
        this.command = command;
        this.input = input;
        this.options = options;
        this.sourceOptions = sourceOptions;
        this.graceWait = graceWait;
    }

    /** A source that runs {@code command} through {@code /bin/sh -c}. */
    public static CommandSource shell(String command) {
        return new CommandSource(CommandLine.shell(command), null, CommandOptions.defaults(), SourceOptions.defaults());
    }

    /** A source that runs the program {@code argv[0]}, found on the PATH, with these arguments. */
    public static CommandSource of(List<String> argv) {
        return new CommandSource(CommandLine.of(argv), null, CommandOptions.defaults(), SourceOptions.defaults());
    }

    /** This source with other command options. */
    public CommandSource withOptions(CommandOptions options) {
        return new CommandSource(command, input, Objects.requireNonNull(options), sourceOptions, graceWait);
    }

    /** This source with other read options (chunk size, buffers, scheduler). */
    public CommandSource withOptions(SourceOptions options) {
        return new CommandSource(command, input, this.options, Objects.requireNonNull(options), graceWait);
    }

    /**
     * This source with the command's standard input read from {@code file} instead of
     * {@code /dev/null}; null restores {@code /dev/null}. Checked when the command starts.
     */
    public CommandSource withInput(Path file) {
        return new CommandSource(command, file, options, sourceOptions, graceWait);
    }

    /** This source with another wait for the grace after SIGTERM: a test's, which sees the grace asked for. */
    CommandSource withGraceWait(Termination.GraceWait wait) {
        return new CommandSource(command, input, options, sourceOptions, Objects.requireNonNull(wait));
    }

    @Override
    public Flux<Chunk> open() {
        return ReadLoop.flux(command.quoted(), this::start, sourceOptions);
    }

    private ChunkReader start() {
        if (input != null && !Files.isReadable(input)) {
            throw ConnectorException.source(Files.exists(input) ? Reason.PERMISSION_DENIED : Reason.NOT_FOUND,
                    "cannot run " + command.quoted() + ": its input " + input + " cannot be read", null);
        }
        CommandProcess process = CommandProcess.start(command, options, CommandProcess.Role.SOURCE, input,
                sourceOptions.scheduler(), graceWait);
        ChunkReader output = process.output();
        return new ChunkReader() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                int n = output.read(dst);
                if (n >= 0) {
                    return n;
                }
                int status = process.awaitExit();
                if (status != 0) {
                    process.stop();
                    throw ConnectorException.command(ErrorCode.SOURCE_FAILED, Reason.IO, status,
                            process.failure(status, ""));
                }
                process.finish(ErrorCode.SOURCE_FAILED);
                return -1;
            }

            @Override
            public void close() {
                process.stop();
            }

            @Override
            public void abort() {
                // Unblocks a read of its output, or the wait for its exit.
                process.stop();
            }
        };
    }

    @Override
    public Optional<String> name() {
        return Optional.empty();
    }

    @Override
    public OptionalLong size() {
        return OptionalLong.empty();
    }

    /** The command, as written (an argument vector shell-quoted). */
    @Override
    public String describe() {
        return command.text();
    }

    @Override
    public String toString() {
        return "CommandSource[" + command.text() + "]";
    }
}
