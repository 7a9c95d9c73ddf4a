package io.rdmaflux.cli;

import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST_HEADING;

import io.rdmaflux.channel.Transports;
import io.rdmaflux.cli.remote.RemoteAgent;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the runnable jar. The launchers in {@code bin/} pass the tool's name first:
 * {@code java -jar rdma-flux.jar rdsend HOST PORT KEY}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] argv) {
        // Standard output carries data: what a plugin or a library prints goes to stderr.
        Console.reserveStdout();
        int code = run(argv);
        // rdcp and rdpipe: no ssh process may outlive the tool (one still logging in is given
        // the rest of its grace to finish, docs/remote.md).
        RemoteAgent.awaitAll(Console::info);
        // Without this, exit waits ~300 ms for the idle event loops (blocked in epoll_wait).
        Transports.shutdown(Duration.ofMillis(500));
        Signals.exit(code);
    }

    /** Runs a tool and returns its exit code (the process is not ended, for tests). */
    public static int run(String[] argv) {
        if (argv.length == 0) {
            System.err.println("usage: java -jar rdma-flux.jar {rdsend|rdrecv|rdcp|rdpipe|rdflux} ARGS...  (or use bin/rdsend, bin/rdrecv, bin/rdcp, bin/rdpipe, bin/rdflux)");
            return ExitCode.USAGE;
        }
        String tool = argv[0];
        String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
        CommandLine cl = commandLine(tool);
        if (cl == null) {
            System.err.println("rdflux: unknown tool '" + tool + "' (expected rdsend, rdrecv, rdcp, rdpipe or rdflux)");
            return ExitCode.USAGE;
        }
        return cl.execute(rest);
    }

    /** The tool's command line, configured for use (errors, help); null for an unknown tool. */
    static CommandLine commandLine(String tool) {
        Object command = switch (tool) {
            case "rdsend" -> new SendCommand();
            case "rdrecv" -> new ReceiveCommand();
            case "rdflux" -> new RdfluxCommand();
            case "rdcp" -> new RdcpCommand();
            case "rdpipe" -> new PipeCommand();
            default -> null;
        };
        if (command == null) {
            return null;
        }
        CommandLine cl = new CommandLine(command);
        // Help and version text to the real stdout, which System.out no longer is (Console.reserveStdout).
        String encoding = System.getProperty("sun.stdout.encoding");
        cl.setOut(new PrintWriter(new OutputStreamWriter(Console.stdout(), encoding != null && Charset.isSupported(encoding)
                ? Charset.forName(encoding) : Charset.defaultCharset()), true));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> usageError(tool, ex.getCommandLine(), unknownCommand(ex)
                .orElseGet(() -> plain(ex.getMessage()))));
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            if (ex instanceof UsageException) {
                return usageError(tool, c, ex.getMessage());
            }
            Console.error(ex);
            return ExitCode.of(ex);
        });
        // Every --help ends with the one exit-code table, after the examples and notes.
        List<String> sections = new ArrayList<>(cl.getHelpSectionKeys());
        sections.removeAll(List.of(SECTION_KEY_EXIT_CODE_LIST_HEADING, SECTION_KEY_EXIT_CODE_LIST));
        sections.addAll(List.of(SECTION_KEY_EXIT_CODE_LIST_HEADING, SECTION_KEY_EXIT_CODE_LIST));
        cl.setHelpSectionKeys(sections);
        listExitCodes(cl);
        return cl;
    }

    /** A usage error: its line, and which --help explains the command it is about (rdflux run --help). */
    private static int usageError(String tool, CommandLine command, String message) {
        System.err.println(tool + ": " + message);
        System.err.println(tool + ": see '" + command.getCommandSpec().qualifiedName() + " --help'");
        return ExitCode.USAGE;
    }

    /** "unknown command 'X'" when a command that takes only subcommands (rdflux) is given a word naming none. */
    private static Optional<String> unknownCommand(CommandLine.ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.isUnknownOption() || u.getUnmatched().isEmpty()
                || cl.getSubcommands().isEmpty() || !cl.getCommandSpec().positionalParameters().isEmpty()) {
            return Optional.empty();
        }
        List<String> commands = cl.getSubcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden())
                .map(Map.Entry::getKey).toList();
        return Optional.of("unknown command '" + u.getUnmatched().get(0) + "' (commands: " + String.join(", ", commands) + ")");
    }

    private static void listExitCodes(CommandLine cl) {
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes (see docs/user-guide.md):%n")
                .exitCodeList(ExitCode.helpList());
        cl.getSubcommands().values().forEach(Main::listExitCodes);
    }

    /**
     * picocli's messages, reworded for people: conversion errors end with the converter's
     * exception, class name included (keep its message); arity and matching errors speak of
     * "positional parameter at index 0..*" (say what is missing or extra). First match wins.
     */
    private record Rewording(Pattern message, String replacement) {

        // In the record, not in Main: compiled on the first usage error, not on every start.
        static final Rewording[] ALL = {
            new Rewording("^(Invalid value for [^:]+): .*\\([\\w.]+Exception: (.*)\\)$", "$1: $2"),
            new Rewording("^positional parameter at index \\S+ \\((.+)\\) requires at least.*$", "missing arguments: expected $1"),
            new Rewording("^Missing required parameters?: '(.+)'$", "missing arguments: expected $1"),
            new Rewording("^Unmatched arguments? (?:from|at) index \\d+: (.+)$", "too many arguments: $1"),
            new Rewording("^Unknown options?: (.+)$", "unknown option $1"),
        };

        Rewording(String regex, String replacement) {
            this(Pattern.compile(regex), replacement);
        }
    }

    static String plain(String message) {
        String m = message.replace('\n', ' ');
        for (Rewording r : Rewording.ALL) {
            Matcher x = r.message().matcher(m);
            if (x.matches()) {
                return x.replaceFirst(r.replacement());
            }
        }
        return m;
    }

    /** {@code rdflux}: the umbrella command. */
    @Command(name = "rdflux", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = {"rdma-flux: move byte streams between hosts at link speed.",
                "Tools: rdsend, rdrecv, rdcp, rdpipe (see their --help). Subcommands: doctor, selftest, run, plugins."},
            subcommands = {DoctorCommand.class, SelftestCommand.class, RunCommand.class, PluginsCommand.class,
                AgentCommand.class, CommandLine.HelpCommand.class},
            footerHeading = "%nExamples:%n",
            footer = {
                "  rdflux doctor                      # can this host use RDMA? what is missing?",
                "  rdflux run --check pipeline.yaml   # check a pipeline file, start nothing",
                "  rdflux run pipeline.yaml",
                "  rdflux plugins                     # sources, filters, stages, sinks"})
    static final class RdfluxCommand implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /** No command given: a usage error, which the usage explains (as configured, exit codes included). */
        @Override
        public Integer call() {
            spec.commandLine().usage(System.err);
            return ExitCode.USAGE;
        }
    }
}
