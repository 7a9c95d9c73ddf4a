package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * Command-line mistakes end with exit 64, the tool's own one-line reason and a pointer to
 * --help, in words a user reads (not picocli's "positional parameter at index 0..*").
 * In-process: these fail before anything connects or listens.
 */
class UsageErrorsTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "rdsend | ''                | rdsend: missing arguments: expected HOST PORT [KEY] [FILE]",
        "rdsend | host              | rdsend: missing arguments: expected HOST PORT [KEY] [FILE]",
        "rdsend | h 1 k f extra     | rdsend: too many arguments: 'extra'",
        "rdsend | -x h 1 k          | rdsend: unknown option '-x'",
        "rdrecv | ''                | rdrecv: missing arguments: expected PORT [KEY] [FILE]",
        "rdrecv | 1 k f extra       | rdrecv: too many arguments: 'extra'",
        "rdrecv | --slots=x 1 k     | rdrecv: Invalid value for option '--slots': 'x' is not an int",
        "rdsend | --slots 1 h 1 k   | rdsend: --slots must be between 2 and 4096, was 1",
        "rdrecv | --slots 4097 1 k  | rdrecv: --slots must be between 2 and 4096, was 4097",
        "rdsend | --command ls h 1 k f | rdsend: give FILE or --command, not both ('f' was taken as FILE)",
        "rdrecv | --command sh 1 k f | rdrecv: give FILE or --command, not both ('f' was taken as FILE)",
        "rdrecv | --command sh --no-fsync 1 k | rdrecv: --no-fsync is for a FILE; with --command the command decides "
            + "how it stores what it reads",
        "rdsend | --zstd 3 h 1 k    | rdsend: --zstd takes its level attached: write --zstd=3 (a separate 3 would be HOST)",
        "rdsend | --frame-size 4097M h 1 k | rdsend: --frame-size must be between 4K and 64M, was 4097M",
        "rdrecv | --frame-size 2K 1 k | rdrecv: --frame-size must be between 4K and 64M, was 2K",
        "rdsend | --frame-size 4T h 1 k | rdsend: --frame-size must be between 4K and 64M, was 4T",
        "rdsend | --frame-size 1X h 1 k | rdsend: Invalid value for option '--frame-size': not a size: '1X' "
            + "(examples: 65536, 256K, 1M)",
        "rdrecv | --frame-size 64M --slots 32 1 k | rdrecv: --frame-size 64M with --slots 32 makes rings of 2.00 GiB; "
            + "frame size x slots may be at most 1.00 GiB: use a smaller --frame-size or fewer --slots",
        "rdrecv | 99999 k           | rdrecv: bad port 99999: expected a number from 0 (any free port) to 65535",
        "rdsend | h 0 k             | rdsend: bad port 0: expected a number from 1 to 65535",
        // rdcp checks the options rdsend has as rdsend does, before ssh starts (-e false: none could).
        "rdcp | -e false --port 70000 a h1:b | rdcp: bad port 70000: expected a number from 0 (any free port) to 65535",
        "rdcp | -e false --sync --port 65535 a h1:b | rdcp: bad port 65535: with --sync the destination's listing "
            + "goes to PORT+1, so PORT may be at most 65534",
        // A user name ssh would take as an option is the user's mistake (it was exit 70, "internal").
        "rdcp | -e false -- a -lroot@h1:/x | rdcp: '-lroot@h1:/x': bad user name '-lroot' (it starts with '-', "
            + "which ssh would take as an option)",
        "rdpipe | -e false -- cat -lroot@h1:cat | rdpipe: segment 2 '-lroot@h1:cat': bad user name '-lroot' "
            + "(it starts with '-', which ssh would take as an option)",
        "rdcp | -e false --frame-size 1K a h1:b | rdcp: --frame-size must be between 4K and 64M, was 1K",
        "rdcp | -e false --slots 1 a h1:b | rdcp: --slots must be between 2 and 4096, was 1",
        // rdpipe's are rdcp's (FrameFlags), checked before ssh starts.
        "rdpipe | -e false --frame-size 1K h1:cat | rdpipe: --frame-size must be between 4K and 64M, was 1K",
        "rdpipe | -e false --slots 4097 h1:cat | rdpipe: --slots must be between 2 and 4096, was 4097",
        "rdcp | -e false --zstd=99 a h1:b | rdcp: zstd: level 99 out of range (-7 to -1, or 1 to 22)",
        "rdsend | --zstd=99 h 1 k   | rdsend: zstd: level 99 out of range (-7 to -1, or 1 to 22)",
        "rdpipe | --zstd=99 cat     | rdpipe: zstd: level 99 out of range (-7 to -1, or 1 to 22)",
        "rdpipe | --zstd 3 h1:cat   | rdpipe: --zstd takes its level attached: write --zstd=3 (a separate 3 would be SEGMENT)",
        "rdcp | --zstd 3 a h1:b     | rdcp: --zstd takes its level attached: write --zstd=3 (a separate 3 would be SRC)",
        // A forgotten KEY: pom.xml (in the working directory of the tests) would have been the key.
        "rdsend | h 1 pom.xml       | rdsend: 'pom.xml' was taken as KEY, but it names a file: if that is the FILE to "
            + "send, give the key before it (HOST PORT KEY pom.xml), or with --key-file or RDFLUX_KEY",
        "rdrecv | 1 pom.xml         | rdrecv: 'pom.xml' was taken as KEY, but it names a file: if that is the FILE to "
            + "write, give the key before it (PORT KEY pom.xml), or with --key-file or RDFLUX_KEY",
        "rdsend | --connect-timeout 10x h 1 k | rdsend: Invalid value for option '--connect-timeout': not a duration: "
            + "'10x' (examples: 10s, 500ms, 2m, or a number of seconds)",
        "rdrecv | --timeout -1 1 k  | rdrecv: Invalid value for option '--timeout': not a duration: '-1' "
            + "(examples: 10s, 500ms, 2m, or a number of seconds)",
        "rdflux | bogus             | rdflux: unknown command 'bogus' (commands: doctor, selftest, run, plugins, help)",
    })
    void mistakesAreExplainedInOneLine(String tool, String args, String expected) {
        String[] argv = (tool + " " + args).trim().split(" +");
        StringBuilder err = new StringBuilder();
        assertThat(run(argv, err)).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString().lines().toList()).containsExactly(expected, tool + ": see '" + tool + " --help'");
    }

    @ParameterizedTest(name = "rdflux {0}")
    @CsvSource(delimiter = '|', value = {
        "run                         | rdflux: missing arguments: expected PIPELINE.yaml",
        "run --plugins pom.xml p.yaml | rdflux: plugin directory pom.xml is not a directory",
        "plugins extra               | rdflux: too many arguments: 'extra'",
    })
    void aSubcommandsMistakesPointAtItsOwnHelp(String args, String expected) {
        StringBuilder err = new StringBuilder();
        String[] argv = ("rdflux " + args).split(" +");
        assertThat(run(argv, err)).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString().lines().toList()).containsExactly(expected, "rdflux: see 'rdflux " + argv[1] + " --help'");
    }

    @Test
    void rdfluxWithoutACommandIsAUsageErrorThatShowsTheUsage() {
        StringBuilder err = new StringBuilder();
        assertThat(run(new String[] {"rdflux"}, err)).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).startsWith("Usage: rdflux ").contains("\nCommands:\n", "\nExit codes ");
    }

    @Test
    void timeoutsAreDurationsAsInPipelineFiles() {
        SendCommand send = new SendCommand();
        new CommandLine(send).parseArgs("h", "1", "k");
        assertThat(send.connectTimeout).isEqualTo(Duration.ofSeconds(10));
        new CommandLine(send).parseArgs("--connect-timeout", "500ms", "h", "1", "k");
        assertThat(send.connectTimeout).isEqualTo(Duration.ofMillis(500));
        ReceiveCommand recv = new ReceiveCommand();
        new CommandLine(recv).parseArgs("--timeout", "2m", "1", "k");
        assertThat(recv.timeout).isEqualTo(Duration.ofMinutes(2));
        new CommandLine(recv).parseArgs("--timeout", "30", "1", "k");
        assertThat(recv.timeout).as("a bare number is seconds").isEqualTo(Duration.ofSeconds(30));
        RdcpCommand rdcp = new RdcpCommand();
        new CommandLine(rdcp).parseArgs("--start-timeout", "5m", "a", "h1:b");
        assertThat(rdcp.remote.startTimeout).isEqualTo(Duration.ofMinutes(5));
    }

    /** Runs a tool in this process, its stderr into {@code err}; gives its exit code. */
    private static int run(String[] argv, StringBuilder err) {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            return Main.run(argv);
        } finally {
            System.setErr(saved);
            err.append(bytes.toString(StandardCharsets.UTF_8));
        }
    }
}
