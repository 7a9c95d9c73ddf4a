package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A command in the middle of a stream, as in a shell pipe: the input is written to the
 * command's standard input, and what it writes to its standard output is the output. Each
 * subscription runs the command afresh.
 *
 * <p><b>End of input only after the input completed.</b> As for {@link CommandSink}, the
 * command sees end of file only when the input Flux completed (for a channel: after its END
 * was verified). When the input fails, the command gets {@link #INPUT_FAILED_WAIT} to exit on its
 * own, its input still open (no end of file); then its whole process group gets SIGTERM (then
 * SIGKILL after {@link CommandOptions#grace()}), and the output fails with the input's error, its
 * code kept: nothing downstream takes a cut stream for a complete one. A command that exited
 * on its own within that wait with a status other than 0 fails the output with its own status
 * instead, as a shell's {@code set -o pipefail} counts the rightmost command that failed
 * ({@code (exit 2) | (sleep 1; exit 4)} is 4).
 *
 * <p><b>The output and exit status are what count.</b> The output completes when the command's
 * output ended and it exited with status 0. Any other status, or death by a signal, fails it
 * with a {@link ConnectorException} (code {@code SOURCE_FAILED}, reason {@code IO}, the
 * {@linkplain ConnectorException#exitStatus() exit status}) whose one-line message names the
 * command, its status and its last stderr lines, as for {@link CommandSource}. A command that
 * stops reading before the end of its input and exits with status 0 ({@code head -c 100}, or a
 * {@code zfs send} that reads nothing) has done its work, as in a shell pipe: its output
 * completes and the rest of the input is cancelled. (A {@link CommandSink}, whose work is to
 * consume the stream, fails instead.)
 *
 * <p><b>Running.</b> As {@link CommandSource} and {@link CommandSink}: a process group and
 * session of its own, a guard that kills the group when this JVM dies, what the command left
 * running in its group given up to {@link CommandOptions#linger()} after a clean exit (then
 * killed, which fails the output; its output, too, must end within the linger after the
 * command exited), stderr passed on line
 * by line, sanitized and prefixed, never mixed into the data. Reads of its output follow
 * {@link SourceOptions}, writes of its input {@link SinkOptions} (both on their schedulers,
 * never on the thread that delivers or requests).
 *
 * <pre>{@code
 * Filter upper = CommandFilter.shell("tr a-z A-Z");
 * Flux<Chunk> shouted = upper.apply(FileSource.of(in).open());
 * FileSink.of(out).write(shouted).block();
 * }</pre>
 */
public final class CommandFilter implements Filter {

    /**
     * How long a command may take to exit on its own once its input failed, before it is
     * stopped: its status then counts as its own, as pipefail's rightmost failure. A command
     * reading its input waits this long, then is stopped as before.
     */
    public static final Duration INPUT_FAILED_WAIT = Duration.ofSeconds(2);

    private final CommandLine command;
    private final CommandOptions options;
    private final SourceOptions readOptions;
    private final SinkOptions writeOptions;

    private CommandFilter(CommandLine command, CommandOptions options, SourceOptions readOptions,
                          SinkOptions writeOptions) {
        this.command = command;
        this.options = options;
        this.readOptions = readOptions;
        this.writeOptions = writeOptions;
    }

    /** A filter that runs {@code command} through the shell ({@code /bin/sh -c} unless the options name another). */
    public static CommandFilter shell(String command) {
        return new CommandFilter(CommandLine.shell(command), CommandOptions.defaults(), SourceOptions.defaults(),
                SinkOptions.defaults());
    }

    /** A filter that runs the program {@code argv[0]}, found on the PATH, with these arguments. */
    public static CommandFilter of(List<String> argv) {
        return new CommandFilter(CommandLine.of(argv), CommandOptions.defaults(), SourceOptions.defaults(),
                SinkOptions.defaults());
    }

    /** This filter with other command options. */
    public CommandFilter withOptions(CommandOptions options) {
        return new CommandFilter(command, Objects.requireNonNull(options), readOptions, writeOptions);
    }

    /** This filter with other options for reading the command's output (chunk size, buffers, scheduler). */
    public CommandFilter withOptions(SourceOptions options) {
        return new CommandFilter(command, this.options, Objects.requireNonNull(options), writeOptions);
    }

    /** This filter with other options for writing the command's input (prefetch, scheduler). */
    public CommandFilter withOptions(SinkOptions options) {
        return new CommandFilter(command, this.options, readOptions, Objects.requireNonNull(options));
    }

    @Override
    public Flux<Chunk> apply(Flux<Chunk> input) {
        Objects.requireNonNull(input, "input");
        return Flux.defer(() -> {
            Run run = new Run(input);
            // When the input failed, whatever the output side saw is a consequence of that.
            return ReadLoop.flux(command.quoted(), run::start, readOptions)
                    .onErrorMap(e -> run.inputFailure != null && e != run.ownFailure ? run.inputFailure : e);
        });
    }

    /** The command, as written (an argument vector shell-quoted). */
    @Override
    public String describe() {
        return command.text();
    }

    @Override
    public String toString() {
        return "CommandFilter[" + command.text() + "]";
    }

    /** One run of the command: its input fed by a write loop, its output read by the read loop. */
    private final class Run implements WriteTarget {

        private final Flux<Chunk> input;
        private volatile CommandProcess process;
        private volatile Disposable feeding;
        private volatile Throwable inputFailure;
        /** The command stopped reading (a broken pipe): what it makes of that is its exit status's business. */
        private volatile boolean stoppedReading;
        /** Set before this side stops the command: an exit after that is not the command's own doing. */
        private volatile boolean stopping;
        /** The command's own failure, when it exited on its own, status not 0, after its input failed. */
        private volatile ConnectorException ownFailure;

        Run(Flux<Chunk> input) {
            // Recorded before the write loop sees the error, so before abort() stops the command.
            this.input = input.doOnError(e -> inputFailure = e);
        }

        /** Starts the command and the feeding of its input; the reader of its output. Runs on the read scheduler. */
        ChunkReader start() {
            CommandProcess p = CommandProcess.start(command, options, CommandProcess.Role.FILTER, null,
                    readOptions.scheduler());
            process = p;
            feeding = WriteTarget.run(this, input, writeOptions).subscribe(r -> { }, e -> { });
            ChunkReader output = p.output();
            return new ChunkReader() {
                @Override
                public int read(ByteBuffer dst) throws IOException {
                    int n = output.read(dst);
                    if (n >= 0) {
                        return n;
                    }
                    int status = p.awaitExit();
                    // Whatever input it did not read is not needed any more.
                    feeding.dispose();
                    if (status == 0 && inputFailure == null) {
                        p.finish(ErrorCode.SOURCE_FAILED);
                        return -1;
                    }
                    // Read before stop(): after it, an exit may be our doing.
                    boolean own = !stopping;
                    p.stop();
                    ConnectorException failure = ConnectorException.command(ErrorCode.SOURCE_FAILED, Reason.IO, status,
                            p.failure(status, stoppedReading ? " (it had stopped reading its input)" : ""));
                    if (inputFailure != null) {
                        if (own && status != 0) {
                            ownFailure = failure;
                            throw failure;
                        }
                        throw new IOException("the input failed");
                    }
                    throw failure;
                }

                @Override
                public void close() {
                    feeding.dispose();
                    stopping = true;
                    p.stop();
                }

                @Override
                public void abort() {
                    // Unblocks a read of its output, or the wait for its exit.
                    stopping = true;
                    p.stop();
                }
            };
        }

        // The input side, driven by the write loop.

        @Override
        public void open() {
            // The command is running already.
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            try {
                while (src.hasRemaining()) {
                    process.stdin().write(src);
                }
            } catch (IOException e) {
                // Nothing reads its stdin any more. (When stop() closed our end because the
                // input failed, the write loop reports the input's failure instead.)
                stoppedReading = true;
                throw e;
            }
        }

        @Override
        public String commit() throws IOException {
            process.closeInput();
            return command.quoted();
        }

        @Override
        public String abort() {
            // A command that stopped reading may still finish its output; the reader decides.
            // Otherwise the input failed or was cancelled: stop it before it sees end of file.
            if (!stoppedReading) {
                // An input that failed: the command may still end on its own (pipefail's
                // rightmost failure is its status), never seeing end of file. Cancelled: at once.
                if (inputFailure == null || process.awaitExit(INPUT_FAILED_WAIT).isEmpty()) {
                    stopping = true;
                }
                process.stop();
            }
            return "";
        }

        @Override
        public void interrupt() {
            stopping = true;
            process.stop();
        }

        @Override
        public String describe() {
            return command.quoted();
        }
    }
}
