package io.rdmaflux.cli;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.StepMetrics;
import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.plugin.PipelineConfig;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import io.rdmaflux.transport.SocketAddresses;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Mono;

/** {@code rdflux run}: runs the pipeline a YAML file describes. */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = "rdflux run [--plugins DIR] [-v] [--progress] [--debug] [--check] PIPELINE.yaml",
        description = {
            "Run one pipeline: a source, zero or more filters and stages, a sink, as PIPELINE.yaml describes them. "
                + "The file is checked completely before anything starts: every problem is one line "
                + "'FILE:LINE: KEY: what is wrong', and the exit status is 78. 'rdflux plugins' lists the "
                + "types and their options. When a command source, filter or sink fails, rdflux exits with "
                + "its status (128+N for signal N), else with a code below. See docs/user-guide.md."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExample (send a file compressed and encrypted; the receiver needs no stages):%n",
        footer = {
            "  source: {type: file, path: /data/dump.sql}",
            "  stages: [{type: zstd, level: 3}, aes-256-gcm]",
            "  sink:   {type: send, host: backup, port: 7691, key-file: ~/.rdkey}",
            "",
            "  On the receiving host:",
            "  source: {type: receive, port: 7691, key-file: ~/.rdkey}",
            "  sink:   {type: file, path: /restore/dump.sql}",
            "  A receive source on port 0 prints 'rdflux: listening on ADDRESS:PORT'.",
            "  Values may use $${VAR} and $${VAR:-default}; ~ expands in paths."})
final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PIPELINE.yaml", description = "The pipeline to run.")
    Path file;

    @Mixin
    Plugins plugins = new Plugins();

    @Option(names = {"-v", "--verbose"}, description = "Say which transport and codecs run; at the end, print the bytes "
        + "in and out of every step with its rate, and the bandwidth.")
    boolean verbose;

    @Option(names = "--progress", description = "Show a progress line on stderr: bytes, rate, and ETA when the size is known.")
    boolean progress;

    @Option(names = "--debug", description = "Show stack traces and library logs with errors.")
    boolean debug;

    @Option(names = "--check", description = "Only check the file (and the plugins): exit 0 if it is valid, 78 if "
        + "not, 66 if it cannot be read, 64 if the plugin directory does not exist.")
    boolean check;

    @Override
    public Integer call() {
        Console.configure("rdflux", verbose, debug);
        PipelineConfig config;
        try {
            PluginRegistry registry = plugins.registry();
            config = PipelineConfig.load(file, registry);
        } catch (ConfigException e) {
            return Plugins.report(e);
        } catch (NoSuchFileException e) {
            Console.error("cannot read " + file + ": no such file");
            return ExitCode.NO_INPUT;
        } catch (IOException e) {
            Console.error("cannot read " + file + ": " + e.getMessage());
            return ExitCode.NO_INPUT;
        }
        if (check) {
            Console.info(file + ": valid (" + config.describe() + ")");
            return ExitCode.OK;
        }
        Meter meter = new Meter();
        AtomicReference<PipelineResult> result = new AtomicReference<>();
        PipelineListener listener = new MeterListener(meter, progress) {
            @Override
            public void onListening(InetSocketAddress address) {
                Console.info("listening on " + SocketAddresses.format(address));
            }
        };
        // Making the plugins may find a missing input: that fails the run with its own exit code.
        // A signal ends the run as a failure that says so, to the peer too, as rdsend's and
        // rdrecv's do ("sender reported: pipeline interrupted by SIGINT"), not a bare cancel.
        Signals.streamUnderWay();
        Mono<RdmaFluxException> interrupted = Signals.raised()
                .map(s -> new RdmaFluxException(ErrorCode.INTERRUPTED, "pipeline interrupted by " + Signals.name(s)));
        Mono<PipelineResult> work = Mono.fromCallable(config::toPipeline)
                .flatMap(p -> p.listener(listener).failOn(interrupted).run())
                // A tree that arrived but for some files: each named, then rdcp's exit 23.
                .flatMap(r -> r.sink().complete() ? Mono.just(r) : Mono.error(Console.notCopied(r.sink().failures())))
                .doOnNext(result::set);
        int code = Runner.run(work);
        meter.stop();
        if (code == ExitCode.OK && verbose) {
            report(result.get(), meter);
        }
        return code;
    }

    /** Per step: bytes in and out, the ratio where they differ, the average rate; then the totals. */
    private static void report(PipelineResult r, Meter meter) {
        for (StepMetrics s : r.steps()) {
            StringBuilder b = new StringBuilder(s.kind().name().toLowerCase(Locale.ROOT)).append(' ').append(s.name())
                    .append(": ").append(Meter.human(s.bytesIn())).append(" in");
            if (s.bytesOut() != s.bytesIn()) {
                b.append(", ").append(Meter.human(s.bytesOut())).append(" out")
                        .append(String.format(Locale.ROOT, " (ratio %.3f)", s.ratio()));
            }
            b.append(", ").append(Meter.human((long) s.rate(r.duration()))).append("/s");
            Console.info(b.toString());
        }
        Console.info(meter.summary());
        Console.stderr().println(meter.bandwidth());
    }
}
