package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A command's standard input as a sink, such as {@code zfs recv pool/fs} or {@code tar x}: each
 * write runs the command afresh and feeds it the stream.
 *
 * <p><b>End of input only after a verified END.</b> The command's stdin is closed (it sees
 * end of file) only when the data Publisher completed; for a channel's
 * {@code InboundStream.receiveChunks()} that is only after the sender's END frame was checked
 * (byte count and CRC32C). On any failure (the stream fails, is cut short or cancelled, the
 * sink fails) the command's whole process group gets SIGTERM, then SIGKILL after
 * {@link CommandOptions#grace()}, and its stdin is held open until then: it never sees end of
 * file, so {@code zfs recv} and {@code tar x} abort rather than commit a partial stream. This
 * holds when this JVM is killed too, even with SIGKILL: a guard process keeps the command's
 * stdin open and kills its group first (see the user guide for what remains).
 *
 * <p><b>Result.</b> After end of input the sink waits for the command to exit, however long
 * its work takes. Status 0 completes the Mono with a {@link SinkResult} whose
 * {@linkplain SinkResult#exitStatus() exit status} is 0; any other status, or death by a
 * signal, fails it with a {@link ConnectorException} (code {@code SINK_FAILED}, reason
 * {@code IO}, the exit status) whose one-line message names the command, its
 * status and its last stderr lines. A command that exits or closes its stdin before the end
 * of the stream (our writes fail with a broken pipe) fails the sink with reason
 * {@code BROKEN_PIPE} and its status, and the Publisher is cancelled.
 *
 * <p><b>Running.</b> The command runs with this process's environment plus
 * {@link CommandOptions#environment()}, in its own process group and session (through
 * {@code setsid}; Linux with util-linux). Its stdout and stderr are passed on together, line by
 * line, sanitized and prefixed ({@code [zfs] ...}); see {@link CommandOptions#stderr()}. When it
 * exits with status 0, what it left running in its group (a process substitution such as
 * {@code tee >(zfs recv ...)}) may finish for up to {@link CommandOptions#linger()}; what still
 * runs then is killed, and the sink fails ({@code SINK_FAILED}, reason {@code IO}, exit status
 * 0; the message suggests ending the command with {@code ; wait $!}). On any other ending its
 * group is killed at once. See {@link Sink} for ownership and
 * threads, and {@link SinkOptions} for the memory bound ({@code fsync} does not apply): writes,
 * waits and the output drain all run on the options' scheduler.
 *
 * <pre>{@code
 * Sink sink = CommandSink.shell("zfs recv -F backup/fs");
 * FluxReceiver.create().port(7691).key(k)
 *         .handle(stream -> sink.write(stream.receiveChunks(), stream.metadata()).then())
 *         .receiveOne().block();
 * }</pre>
 */
public final class CommandSink implements Sink {

    private final CommandLine command;
    private final CommandOptions options;
    private final SinkOptions sinkOptions;
    private final Termination.GraceWait graceWait;

    private CommandSink(CommandLine command, CommandOptions options, SinkOptions sinkOptions) {
        this(command, options, sinkOptions, Termination.GraceWait.REAL);
    }

    private CommandSink(CommandLine command, CommandOptions options, SinkOptions sinkOptions,
                        Termination.GraceWait graceWait) {
        this.command = command;
        this.options = options;
        this.sinkOptions = sinkOptions;
        this.graceWait = graceWait;
    }

    /** A sink that runs {@code command} through {@code /bin/sh -c}. */
    public static CommandSink shell(String command) {
        return new CommandSink(CommandLine.shell(command), CommandOptions.defaults(), SinkOptions.defaults());
    }

    /** A sink that runs the program {@code argv[0]}, found on the PATH, with these arguments. */
    public static CommandSink of(List<String> argv) {
        return new CommandSink(CommandLine.of(argv), CommandOptions.defaults(), SinkOptions.defaults());
    }

    /** This sink with other command options. */
    public CommandSink withOptions(CommandOptions options) {
        return new CommandSink(command, Objects.requireNonNull(options), sinkOptions, graceWait);
    }

    /** This sink with other write options (prefetch, scheduler). */
    public CommandSink withOptions(SinkOptions options) {
        return new CommandSink(command, this.options, Objects.requireNonNull(options), graceWait);
    }

    /** This sink with another wait for the grace after SIGTERM: a test's, which sees the grace asked for. */
    CommandSink withGraceWait(Termination.GraceWait wait) {
        return new CommandSink(command, options, sinkOptions, Objects.requireNonNull(wait));
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        Objects.requireNonNull(data, "data");
        return Mono.defer(() -> WriteLoop.write(new Target(), data, sinkOptions));
    }

    /** The command, as written (an argument vector shell-quoted). */
    @Override
    public String describe() {
        return command.text();
    }

    @Override
    public String toString() {
        return "CommandSink[" + command.text() + "]";
    }

    /** One run of the command. */
    private final class Target implements WriteTarget {

        private volatile CommandProcess process;
        private long written;
        private boolean endGiven;
        private boolean statusReported;

        @Override
        public void open() {
            process = CommandProcess.start(command, options, CommandProcess.Role.SINK, null, sinkOptions.scheduler(),
                    graceWait);
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            try {
                while (src.hasRemaining()) {
                    written += process.stdin().write(src);
                }
            } catch (IOException e) {
                // A broken pipe: nothing reads its stdin any more. (When stop() closed our end
                // because the stream failed, the write loop reports that instead.)
                throw stoppedReading();
            }
        }

        private ConnectorException stoppedReading() {
            OptionalInt exited = process.awaitExit(options.grace());
            process.stop();
            int status = process.exitStatus();
            statusReported = true;
            String message = exited.isPresent()
                    ? process.failure(status, " before the end of the stream (it stopped reading after "
                            + written + " bytes)")
                    : process.quoted() + " stopped reading its input after " + written
                            + " bytes, before the end of the stream, and was stopped ("
                            + ExitText.describe(status) + ")";
            return ConnectorException.command(ErrorCode.SINK_FAILED, Reason.BROKEN_PIPE, status, message);
        }

        @Override
        public String commit() throws IOException {
            endGiven = true;
            process.closeInput();
            int status = process.awaitExit();
            statusReported = true;
            if (status != 0) {
                process.stop();
                throw ConnectorException.command(ErrorCode.SINK_FAILED, Reason.IO, status,
                        process.failure(status, " after the end of its input"));
            }
            process.finish(ErrorCode.SINK_FAILED);
            return command.quoted();
        }

        @Override
        public String abort() {
            CommandProcess p = process;
            if (p == null) {
                return "";
            }
            CommandProcess.Ending how = p.stop();
            String input = endGiven ? " after the end of its input" : " and never saw the end of its input";
            return switch (how) {
                case EXITED -> statusReported ? "" : p.quoted() + " had " + ExitText.describe(p.exitStatus());
                case TERMINATED -> p.quoted() + " was stopped with SIGTERM" + input;
                case KILLED -> p.quoted() + " was killed with SIGKILL, having ignored SIGTERM for "
                        + ExitText.seconds(options.grace()) + input;
            };
        }

        @Override
        public void interrupt() {
            CommandProcess p = process;
            if (p != null) {
                p.stop();
            }
        }

        @Override
        public OptionalInt exitStatus() {
            return OptionalInt.of(process.exitStatus());
        }

        @Override
        public String describe() {
            return command.quoted();
        }
    }
}
