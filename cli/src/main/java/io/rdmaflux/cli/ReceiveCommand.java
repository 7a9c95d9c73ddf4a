package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.connector.CommandSink;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineMetrics;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.ReceiveSource;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Mono;

/**
 * {@code rdrecv}: receives one stream from {@code rdsend} into a file, standard output or a
 * command's input, as a pipeline ({@link ReceiveSource}, then the sink) on the runner every
 * tool shares.
 */
@Command(name = "rdrecv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = {"rdrecv [OPTIONS] PORT [KEY] [FILE]", "       rdrecv [OPTIONS] --command CMD PORT [KEY]"},
        description = {
            "Receive one byte stream from rdsend on PORT and write it to FILE (or standard output, or the input "
                + "of --command CMD), "
                + "then exit. Listens for RDMA and TCP on the same port when RDMA is usable. A file is "
                + "written under a temporary name, synced and renamed when the stream is complete and "
                + "verified; on any failure, and on Ctrl-C, the partial file is removed. A device or FIFO is "
                + "written through, never replaced. PORT 0 picks a "
                + "free port and prints it: 'rdrecv: listening on ADDRESS:PORT'."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  # as rdma-pipe:",
            "  rdrecv 12345 secret > copy.bin",
            "  # write the file directly, print the bandwidth:",
            "  rdrecv -v 12345 secret copy.bin",
            "  # zfs recv sees the end of its input only after the stream was verified:",
            "  rdrecv --key-file ~/.rdkey --command 'zfs recv pool/fs' 12345",
            "",
            "With --command, a failed CMD's own status is rdrecv's (128+N for signal N); the sender then "
                + "exits 74. A sender with the wrong key is refused and rdrecv keeps waiting; a sender whose "
                + "input fails makes rdrecv exit 66."})
final class ReceiveCommand implements Callable<Integer> {

    @Parameters(index = "0..2", paramLabel = "PORT [KEY] [FILE]", arity = "1..3", hideParamSyntax = true,
            description = "PORT to listen on (0: any free one); KEY, the shared secret, unless --key-file or "
                + "RDFLUX_KEY gives it; FILE to write (default: standard output; - also means stdout). With "
                + "RDFLUX_KEY, write FILE as a path (./out.bin): a bare word there may be a key.")
    List<String> args;

    @Mixin
    KeyOptions key = new KeyOptions();

    @Mixin
    ChannelFlags flags = new ChannelFlags();

    @Mixin
    Plugins plugins = new Plugins();

    @Option(names = "--command", paramLabel = "CMD",
            description = "Write the stream to the standard input of CMD, instead of FILE; /bin/sh runs CMD "
                + "(zfs recv pool/fs, tar x -C dir). CMD sees the end of its input only after the whole stream "
                + "arrived and was verified; if the stream fails or is cut, CMD is stopped (SIGTERM, SIGKILL after "
                + "5 s) without ever seeing it, so zfs recv and tar x abort rather than keep a partial stream. "
                + "rdrecv exits with CMD's status when it is not 0 (128+N for signal N). CMD's output is passed on "
                + "to stderr as [NAME] lines.")
    String command;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Local address to listen on. Default: ${DEFAULT-VALUE} (all interfaces).")
    String bind;

    @Option(names = "--require-encryption", description = "Refuse a stream the sender did not encrypt (--encrypt). "
        + "Without it, someone on the path could strip encryption from the chain the sender announced.")
    boolean requireEncryption;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "0", converter = DurationConverter.class,
            description = "Give up if no sender arrives within DURATION (" + DurationConverter.FORMS
                + "; 0: wait as long as it takes). Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Option(names = {"-f", "--force"}, description = "Write the stream to standard output even when it is a terminal. "
        + "Without -f that is refused (exit 64), as gzip refuses: it usually means the key was forgotten and FILE "
        + "taken for it.")
    boolean force;

    @Option(names = "--no-fsync", description = "Confirm a stream once its file is written and renamed, without "
        + "waiting for the disk to store it (fsync). Faster for files that fit the page cache; a crash or power "
        + "loss right after can lose the file although rdsend succeeded.")
    boolean noFsync;

    /**
     * {@code e}, without the finer reason of a file that could not be created once the stream
     * arrived: the sender learns only SINK_FAILED (74), and both tools report the same code.
     * An output that cannot be created is found before listening (73) in all but a race.
     */
    private static Throwable asTheSenderSeesIt(Throwable e) {
        return e instanceof ConnectorException ce && ce.code() == ErrorCode.SINK_FAILED
                ? new RdmaFluxException(ce.code(), ce.getMessage(), ce) : e;
    }

    @Override
    public Integer call() {
        Console.configure("rdrecv", flags.verbose, flags.debug);
        KeyOptions.Positionals positionals = key.split(args, "PORT", true);
        int port = Ports.parse(positionals.leading().get(0), true);
        String file = positionals.file();
        if (command != null && file != null) {
            throw new UsageException("give FILE or --command, not both ('" + file + "' was taken as FILE)");
        }
        if (command != null && noFsync) {
            throw new UsageException("--no-fsync is for a FILE; with --command the command decides how it stores what it reads");
        }
        if (command == null && (file == null || file.equals("-")) && !force && Terminal.isStdout()) {
            // Binary on the screen: most likely the key was forgotten and FILE taken for it.
            throw Terminal.refusal(file == null ? positionals.key() : null);
        }
        byte[] secret = key.resolve(positionals.key());
        ChannelOptions options = flags.options(0, false);

        Sink sink = command != null ? CommandSink.shell(command)
                : Sink.fileOrStdout(file, SinkOptions.defaults().withFsync(!noFsync));
        Meter meter = new Meter();
        MeterListener listener = new MeterListener(meter, flags.progress) {
            @Override
            public void onListening(InetSocketAddress address) {
                // Always for port 0, which only this line tells; scripts read it from stderr.
                if (port == 0 || flags.verbose) {
                    Console.info("listening on " + (bind.contains(":") ? "[" + bind + "]" : bind) + ":"
                            + address.getPort());
                }
            }
        };
        // The codec stages of the plugin directory too, as rdflux run's: the sender may be a pipeline.
        CodecRegistry stages = plugins.codecs();
        Mono<PipelineResult> work = Pipeline.from(ReceiveSource.create(port, secret).bind(bind)
                        .transport(flags.transport).options(options)
                        .timeout(timeout).requireEncryption(requireEncryption))
                .to(Signals.guard(sink, "receiver"))
                .codecs(stages)
                .listener(listener)
                .run()
                .onErrorMap(ReceiveCommand::asTheSenderSeesIt);
        int code = Runner.run(work);
        meter.stop();
        if (code == ExitCode.OK && flags.verbose) {
            PipelineMetrics m = listener.metrics();
            String codecs = m.metadata().codecs();
            Console.info("received " + meter.summary() + " into " + sink.describe()
                    + Codecs.ratio(codecs != null && !codecs.isEmpty(), meter.bytes(), m.steps().get(0).bytesIn()));
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }
}
