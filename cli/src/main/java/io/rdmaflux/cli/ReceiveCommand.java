package io.rdmaflux.cli;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Mono;

/** {@code rdrecv}: receives one stream from {@code rdsend} into a file or standard output. */
@Command(name = "rdrecv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = "rdrecv [OPTIONS] PORT [KEY] [FILE]",
        description = {
            "Receive one byte stream from rdsend on PORT and write it to FILE (or standard output), "
                + "then exit. Listens for RDMA and TCP on the same port when RDMA is usable. A file is "
                + "written under a temporary name, synced and renamed when the stream is complete and "
                + "verified; on any failure, and on Ctrl-C, the partial file is removed. PORT 0 picks a "
                + "free port and prints it: 'rdrecv: listening on ADDRESS:PORT'."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  # as rdma-pipe:",
            "  rdrecv 12345 secret > copy.bin",
            "  # write the file directly, print the bandwidth:",
            "  rdrecv -v 12345 secret copy.bin",
            "  rdrecv --key-file ~/.rdkey 12345 | zfs recv pool/fs",
            "",
            "Exit codes: 0 ok, 64 usage, 65 corrupt or tampered data, 66 sender's input failed, "
                + "69 cannot listen, 70 internal, 73 cannot create output, 74 write failed (disk full), "
                + "75 cut short (sender died or was interrupted, timeout), 76 checksum mismatch, "
                + "130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP. "
                + "See docs/user-guide.md."})
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

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Local address to listen on. Default: ${DEFAULT-VALUE} (all interfaces).")
    String bind;

    @Option(names = "--require-encryption", description = "Refuse a stream the sender did not encrypt (--encrypt). "
        + "Without it, someone on the path could strip encryption from the chain the sender announced.")
    boolean requireEncryption;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "Give up if no sender arrives within SECONDS (0: wait as long as it takes). Default: ${DEFAULT-VALUE}.")
    int timeout;

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
                ? new ProtocolException(ce.code(), ce.getMessage(), ce) : e;
    }

    @Override
    public Integer call() {
        Console.configure("rdrecv", flags.verbose, flags.debug);
        KeyOptions.Positionals positionals = key.split(args, "PORT", true);
        int port = Ports.parse(positionals.leading().get(0), true);
        String file = positionals.file();
        byte[] secret = key.resolve(positionals.key());
        if (timeout < 0) {
            throw new UsageException("--timeout must not be negative");
        }
        ChannelOptions options = flags.options(0, false);

        Sink sink = Sink.fileOrStdout(file, SinkOptions.defaults().withFsync(!noFsync));
        Meter meter = new Meter();
        AtomicLong wire = new AtomicLong();
        AtomicBoolean arrived = new AtomicBoolean();
        AtomicReference<CodecChain> used = new AtomicReference<>(CodecChain.empty());
        Mono<Void> work = FluxReceiver.create()
                .host(bind).port(port).key(secret).transport(flags.transport).options(options)
                .handle(in -> {
                    arrived.set(true);
                    meter.streamStarted();
                    long size = in.metadata().size();
                    if (size >= 0) {
                        meter.total(size);
                    }
                    if (flags.progress) {
                        meter.startProgress();
                    }
                    // The sender's chain travels in the metadata: refused here, before data, if unknown.
                    CodecChain chain = CodecChain.parse(in.metadata().codecs());
                    if (requireEncryption && !chain.contains(AesGcmStage.NAME)) {
                        throw new ProtocolException(ErrorCode.CODEC,
                                "the sender did not encrypt the stream (--require-encryption); use rdsend --encrypt");
                    }
                    used.set(chain);
                    Flux<Chunk> data = in.receiveChunks().doOnNext(c -> wire.addAndGet(c.remaining()));
                    if (!chain.isEmpty()) {
                        Codecs.announce(chain, flags.verbose);
                        data = chain.decode(data, CodecContext.forSession(in.session(), secret));
                    }
                    data = Signals.guard(data.doOnNext(c -> meter.add(c.remaining())), "receiver");
                    return sink.write(data, in.metadata()).then();
                })
                .bindOne()
                .flatMap(server -> {
                    // Always for port 0, which only this line tells; scripts read it from stderr.
                    if (port == 0 || flags.verbose) {
                        Console.info("listening on " + (bind.contains(":") ? "[" + bind + "]" : bind) + ":"
                                + server.address().getPort());
                    }
                    return server.outcome();
                })
                .onErrorMap(e -> Codecs.altered(used.get(), asTheSenderSeesIt(e)));
        if (timeout > 0) {
            // Only the wait for a sender is limited: a stream that arrived may take as long as it needs.
            Mono<Void> deadline = Mono.delay(Duration.ofSeconds(timeout)).flatMap(x -> arrived.get() ? Mono.never()
                    : Mono.error(new ProtocolException(ErrorCode.TIMEOUT, "no sender arrived within " + timeout + " s")));
            work = Mono.firstWithSignal(work, deadline);
        }
        int code = Runner.run(work);
        meter.stop();
        if (code == ExitCode.OK && flags.verbose) {
            Console.info("received " + meter.summary() + " into " + sink.describe()
                    + Codecs.ratio(used.get(), meter.bytes(), wire.get()));
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }
}
