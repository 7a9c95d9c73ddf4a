package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.Source;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.SendSink;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Mono;

/**
 * {@code rdsend}: sends a file, standard input or a command's output to an {@code rdrecv}, as a
 * pipeline (source, codec stages, {@link SendSink}) on the runner every tool shares.
 */
@Command(name = "rdsend", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = {"rdsend [OPTIONS] HOST PORT [KEY] [FILE]", "       rdsend [OPTIONS] --command CMD HOST PORT [KEY]"},
        description = {
            "Send a byte stream (FILE, standard input, or the output of --command CMD) to rdrecv on HOST:PORT, over RDMA when "
                + "both hosts have it and TCP otherwise. Succeeds only when the receiver has confirmed "
                + "every byte (count and CRC32C) and finished writing it."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  # as rdma-pipe:",
            "  rdsend backup 12345 secret < image.bin",
            "  # read the file directly, print the bandwidth:",
            "  rdsend -v backup 12345 secret image.bin",
            "  # key from the environment or a file (not visible in ps):",
            "  RDFLUX_KEY=secret rdsend backup 12345 big.tar",
            "  zfs send pool/fs@snap | rdsend --progress --key-file ~/.rdkey backup 12345",
            "  # a command's output; its failure fails the transfer (a pipe's is lost):",
            "  rdsend --key-file ~/.rdkey --command 'zfs send pool/fs@snap' backup 12345",
            "  # compress and encrypt on the way:",
            "  rdsend --zstd --encrypt backup 12345 secret dump.sql",
            "",
            "If rdrecv is not up yet, rdsend retries for --connect-timeout (10 s).",
            "",
            "Ctrl-C cancels the stream: the receiver removes its partial file. Input from a pipe "
                + "is confirmed ended 250 ms after its end, so that Ctrl-C on 'tar c dir | rdsend ...' "
                + "never delivers a cut tar.",
            "",
            "With --command, a failed CMD's own status is rdsend's (128+N for signal N). When the receiver "
                + "cannot write its output, or its --command fails, rdsend exits 74."})
final class SendCommand implements Callable<Integer> {

    @Parameters(index = "0..3", paramLabel = "HOST PORT [KEY] [FILE]", arity = "2..4", hideParamSyntax = true,
            description = "HOST and PORT of the receiver; KEY, the shared secret, unless --key-file or "
                + "RDFLUX_KEY gives it; FILE to send (default: standard input; - also means stdin).")
    List<String> args;

    @Mixin
    KeyOptions key = new KeyOptions();

    @Mixin
    ChannelFlags flags = new ChannelFlags();

    @Mixin
    ZstdOption zstd = new ZstdOption();

    @Option(names = "--encrypt", description = "Encrypt with AES-256-GCM under a key derived from KEY and this "
        + "connection's random nonces; tampering, reordering or truncation fails the stream.")
    boolean encrypt;

    @Option(names = "--command", paramLabel = "CMD",
            description = "Send what CMD writes to its standard output, instead of FILE; /bin/sh runs CMD "
                + "(zfs send pool/fs@snap, tar c -C dir .). CMD must end with status 0: any other status, or death "
                + "by a signal, fails the transfer even after its last byte (the receiver keeps nothing), and "
                + "rdsend exits with CMD's status (128+N for signal N). CMD's stderr is passed on as [NAME] lines.")
    String command;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to keep retrying when no receiver is up yet (" + DurationConverter.FORMS
                + "). Default: ${DEFAULT-VALUE}.")
    Duration connectTimeout;

    @Override
    public Integer call() {
        Console.configure("rdsend", flags.verbose, flags.debug);
        KeyOptions.Positionals positionals = key.split(args, "HOST PORT", false);
        String host = positionals.leading().get(0);
        int port = Ports.parse(positionals.leading().get(1), false);
        String file = positionals.file();
        if (command != null && file != null) {
            throw new UsageException("give FILE or --command, not both ('" + file + "' was taken as FILE)");
        }
        byte[] secret = key.resolve(positionals.key());

        CodecChain chain = Codecs.chain(zstd.level, encrypt, flags.options().frameSize());
        ChannelOptions options = flags.options(chain.specs().size(), true)
                .withConnectTimeout(connectTimeout);
        // Blocks sized so that each encoded record fits one frame.
        int block = Pipeline.blockSize(chain, options.frameSize());
        Source source;
        try {
            source = Codecs.source(file, command, block, options.sendSlots());
        } catch (ConnectorException e) {
            throw key.explainMissingInput(e, file);
        }
        // A pipe's end may come from a producer killed by the signal that is about to stop us.
        // A command's end is its exit status 0, and the signal does not reach it (its own session).
        boolean confirmEnd = command == null && Signals.inputIsPipe(file);
        Meter meter = new Meter();
        source.size().ifPresent(meter::total);
        AtomicReference<PipelineResult> result = new AtomicReference<>();
        Mono<PipelineResult> work = Pipeline.from(Signals.guard(source, "sender", confirmEnd))
                .via(chain)
                .to(SendSink.create(host, port, secret).transport(flags.transport).options(options))
                .listener(new MeterListener(meter, flags.progress))
                .run()
                .doOnNext(result::set);
        int code = Runner.run(work);
        meter.stop();
        if (code == ExitCode.OK && flags.verbose) {
            Console.info("sent " + meter.summary() + Codecs.ratio(!chain.isEmpty(), meter.bytes(),
                    result.get().sink().bytes()));
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }
}
