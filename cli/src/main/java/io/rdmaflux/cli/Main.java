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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Entry point of the runnable jar. The launchers in {@code bin/} pass the tool's name first:
 * {@code java -jar rdma-flux.jar rdsend HOST PORT KEY}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] argv) {
        if (argv.length == 3 && argv[0].equals("--standby")) {
            // A standby JVM (StandbyCalls): a served call ends the process itself.
            System.exit(StandbyCalls.serve(argv[1], argv[2]));
        }
        // Standard output carries data: what a plugin or a library prints goes to stderr.
        Console.reserveStdout();
        StandbyCalls.warnIfNotUnderstood(argv);
        int code = run(argv);
        // rdcp and rdpipe: no ssh process may outlive the tool (one still logging in is given
        // the rest of its grace to finish, docs/remote.md).
        RemoteAgent.awaitAll(Console::info);
        // Without this, exit waits ~300 ms for the idle event loops (blocked in epoll_wait).
        Transports.shutdown(Duration.ofMillis(500));
        StandbyCalls.afterColdRun(argv);
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
        CommandLine cl = commandLine(tool, rest);
        if (cl == null) {
            System.err.println("rdflux: unknown tool '" + tool + "' (expected rdsend, rdrecv, rdcp, rdpipe or rdflux)");
            return ExitCode.USAGE;
        }
        return cl.execute(rest);
    }

    /** The tool's command line, configured for use (errors, help); null for an unknown tool. */
    static CommandLine commandLine(String tool) {
        return commandLine(tool, null);
    }

    /**
     * The tool's command line for the arguments {@code argv} (null: for any). picocli reads the annotations
     * of every subcommand it is given, a few hundred classes' worth of start-up: rdflux is given
     * only the one its arguments name ({@code rdflux agent}, which rdcp and rdpipe start on every
     * remote host), none for {@code --version}, and all of them otherwise (help, mistakes).
     */
    static CommandLine commandLine(String tool, String[] argv) {
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
        if (command instanceof RdfluxCommand) {
            for (String name : RDFLUX_COMMANDS) {
                if (needed(name, argv)) {
                    cl.addSubcommand(name, rdfluxCommand(name));
                }
            }
        }
        // Help and version text to the real stdout, which System.out no longer is (Console.reserveStdout).
        String encoding = System.getProperty("sun.stdout.encoding");
        cl.setOut(new PrintWriter(new OutputStreamWriter(Console.stdout(), encoding != null && Charset.isSupported(encoding)
                ? Charset.forName(encoding) : Charset.defaultCharset()), true));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> usageError(tool, ex.getCommandLine(), unknownCommand(ex)
                .orElseGet(() -> plain(ex, args))));
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

    /** rdflux's subcommands, in the order its help lists them. */
    private static final List<String> RDFLUX_COMMANDS = List.of("doctor", "selftest", "run", "plugins", "agent", "help");

    /** A subcommand of rdflux; a switch and not a table of constructors, which would load every class. */
    private static Object rdfluxCommand(String name) {
        return switch (name) {
            case "doctor" -> new DoctorCommand();
            case "selftest" -> new SelftestCommand();
            case "run" -> new RunCommand();
            case "plugins" -> new PluginsCommand();
            case "agent" -> new AgentCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Whether rdflux needs the subcommand {@code name} for {@code args} (null: any arguments). */
    private static boolean needed(String name, String[] args) {
        if (args == null || args.length == 0) {
            return true;
        }
        String first = args[0];
        if (args.length == 1 && (first.equals("--version") || first.equals("-V"))) {
            return false;
        }
        return !RDFLUX_COMMANDS.contains(first) || first.equals("help") || name.equals(first);
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
     * picocli's message for a command-line mistake, reworded for people, in one line: a
     * converter's failure gives the converter's message (picocli's ends with the exception,
     * class name included); too few or too many positionals say what is missing or extra
     * (picocli speaks of "positional parameter at index 0..*"); unknown options are named.
     * Decided by picocli's exception types and what they carry, not by the English of its
     * messages, which a picocli upgrade may change; other mistakes keep picocli's words.
     */
    static String plain(CommandLine.ParameterException ex, String[] args) {
        return reworded(ex, List.of(args)).orElseGet(ex::getMessage).replace('\n', ' ');
    }

    private static Optional<String> reworded(CommandLine.ParameterException ex, List<String> args) {
        if (ex instanceof CommandLine.MissingParameterException m) {
            // Only positionals: a missing option value or required option keeps picocli's words.
            List<ArgSpec> missing = m.getMissing();
            if (missing.isEmpty() || !missing.stream().allMatch(ArgSpec::isPositional)) {
                return Optional.empty();
            }
            return Optional.of("missing arguments: expected "
                    + String.join(" ", missing.stream().map(ArgSpec::paramLabel).toList()));
        }
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String quoted = quoted(u.getUnmatched(), args);
            return Optional.of(u.isUnknownOption() ? "unknown option " + quoted : "too many arguments: " + quoted);
        }
        // A converter that failed with an exception of its own: its message says what the value should be.
        Throwable cause = ex.getCause();
        if (ex.getArgSpec() != null && cause != null && !(cause instanceof CommandLine.TypeConversionException)
                && cause.getMessage() != null) {
            return Optional.of("Invalid value for " + describe(ex.getArgSpec()) + ": " + cause.getMessage());
        }
        return Optional.empty();
    }

    /**
     * The unmatched arguments, quoted, found again in order among the arguments given: one
     * that is not there as it is was what was left of a cluster of short options ({@code -q}
     * of {@code -vq}), which is named too.
     */
    private static String quoted(List<String> unmatched, List<String> args) {
        List<String> out = new ArrayList<>();
        int next = 0;
        for (String u : unmatched) {
            String quoted = "'" + u + "'";
            for (int i = next; i < args.size(); i++) {
                String a = args.get(i);
                boolean cluster = u.startsWith("-") && a.startsWith("-") && !a.startsWith("--")
                        && a.length() > u.length() && a.endsWith(u.substring(1));
                if (a.equals(u) || cluster) {
                    quoted += cluster ? " (while processing option: '" + a + "')" : "";
                    next = i + 1;
                    break;
                }
            }
            out.add(quoted);
        }
        return String.join(", ", out);
    }

    /** An option or positional as picocli's conversion errors name it. */
    private static String describe(ArgSpec arg) {
        return arg instanceof OptionSpec o ? "option '" + o.longestName() + "'"
                : "positional parameter at index " + ((PositionalParamSpec) arg).index() + " (" + arg.paramLabel() + ")";
    }

    /** {@code rdflux}: the umbrella command. */
    @Command(name = "rdflux", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = {"rdma-flux: move byte streams between hosts at link speed.",
                "Tools: rdsend, rdrecv, rdcp, rdpipe (see their --help). Subcommands: doctor, selftest, run, plugins."},
            // Subcommands: added by commandLine, only those the arguments need (RDFLUX_COMMANDS).
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
