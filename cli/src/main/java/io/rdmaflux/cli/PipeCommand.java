package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentSizing;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@code rdpipe}: commands chained across hosts, the data flowing host to host. */
@Command(name = "rdpipe", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = "rdpipe [OPTIONS] SEGMENT...",
        description = {
            "Send stdin through commands on other hosts and back to stdout, each host sending straight to the next "
                + "over the channel (RDMA, else TCP). A SEGMENT is [user@]host:'command', or 'command' for this host. "
                + "The command may instead be an operator: '< FILE' starts the chain from FILE on that host (later in "
                + "the chain: after what comes before it has ended, its output discarded), '> FILE' and '>> FILE' end "
                + "it in FILE (what follows gets an empty stream).",
            "",
            "Each segment runs 'rdflux agent' over ssh (as rdcp does): it receives on a port of its own (so a host "
                + "may appear any number of times), runs the command with the user's shell, and sends to the next "
                + "segment with a key made for that link. A command sees the end of its input only when the stream "
                + "arrived complete; when any segment fails, the whole chain is stopped within seconds (commands "
                + "killed, never given end of input) and nothing is left running. Ctrl-C, SIGTERM or SIGHUP does the same."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  # prints OLLEH:",
            "  echo hello | rdpipe host1:'tr [:lower:] [:upper:]' host2:'rev'",
            "  rdpipe other:'sha1sum' < myfile",
            "  rdpipe fs1:'< textfile' caps:'tr [:lower:] [:upper:]' fs2:'> TEXTFILE'",
            "  rdpipe fs1:'zfs send tank/m@snap' \\",
            "      fs2:'tee >(zfs recv tank/m); wait $!' backup:'zfs recv tank/m'",
            "",
            "Exit status: as 'set -o pipefail': 0 when every segment succeeded, else the status of the rightmost "
                + "segment that failed (its command's own status, 128+N for signal N, or a code below), with a "
                + "line on stderr naming the segment, its host and why."})
final class PipeCommand implements Callable<Integer> {

    /** What every hop shares. */
    record Settings(Integer zstdLevel, boolean encrypt, boolean verbose, boolean debug, long progressInterval,
                    AgentSizing sizing) {

        /** Settings with the default frame size and slots. */
        Settings(Integer zstdLevel, boolean encrypt, boolean verbose, boolean debug, long progressInterval) {
            this(zstdLevel, encrypt, verbose, debug, progressInterval, AgentSizing.DEFAULT);
        }
    }

    @Parameters(arity = "1..*", paramLabel = "SEGMENT", description = "[user@]host:'command', or 'command' for this "
            + "host; the command may be '< FILE', '> FILE' or '>> FILE'.")
    List<String> segments = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "At the end, print the bytes that crossed the chain's "
            + "busiest hop and their bandwidth (rdma-pipe's 'Bandwidth X GB/s'); say what each hop does.")
    boolean verbose;

    @Option(names = "--progress", description = "Show a progress line on stderr: the bytes of the chain's busiest hop and the rate.")
    boolean progress;

    @Option(names = {"-n", "--dry-run"}, description = "Print what would run where, one line per hop, and exit.")
    boolean dryRun;

    /** Compresses every hop. */
    @Mixin
    ZstdOption zstd = new ZstdOption();

    @Option(names = "--encrypt", description = "Encrypt every hop with AES-256-GCM (the channel authenticates every "
            + "hop anyway, with a key made for it); each receiver refuses a stream that is not encrypted.")
    boolean encrypt;

    /** Every hop's channel: as rdcp's, and each hop's agent is sized for them. */
    @Mixin
    FrameFlags frame = new FrameFlags();

    @Mixin
    RemoteOptions remote = new RemoteOptions();

    @Option(names = "--debug", description = "Show stack traces and library logs with errors.")
    boolean debug;

    @Override
    public Integer call() {
        Console.configure("rdpipe", verbose, debug);
        List<PipeSegment> parsed = new ArrayList<>();
        for (int i = 0; i < segments.size(); i++) {
            parsed.add(PipeSegment.parse(i + 1, segments.get(i)));
        }
        PipePlan plan = PipePlan.of(parsed);
        AgentSizing sizing = frame.agentSizing();   // the sizes' ranges, as rdcp checks them
        Codecs.chain(zstd.level, encrypt, (int) sizing.frameSize());   // the level, as rdsend checks it
        if (plan.readsStdin() && Terminal.isStdin()) {
            // As a remote command started from a terminal: a chain that starts with a command
            // that reads nothing ('zfs send') must not wait for someone to type.
            plan = plan.withoutStdin();
        }
        if (dryRun) {
            plan.describe().forEach(Console.stdout()::println);
            return ExitCode.OK;
        }
        RemoteShell shell = remote.shell(System.getenv()).sizing(sizing);
        PluginRegistry plugins = PluginRegistry.load(PluginRegistry.defaultDirectory(System.getenv()));
        Settings settings = new Settings(zstd.level, encrypt, verbose, debug, progress ? 500 : 0, sizing);
        Meter meter = new Meter();
        if (progress) {
            meter.startProgress();
        }
        PipePlan p = plan;
        Mono<Void> work = Flux.fromIterable(p.runs())
                .concatMap(hops -> new PipeChain(hops, shell, plugins, settings, meter).run())
                .then();
        meter.streamStarted();
        int code = Runner.run(work);
        meter.stop();
        if (code == ExitCode.OK && verbose) {
            Console.info(meter.summary());
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }
}
