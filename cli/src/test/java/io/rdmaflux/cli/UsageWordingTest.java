package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact line and exit code of every kind of command-line mistake picocli reports, reworded
 * or passed on: a picocli upgrade that changes its exceptions or their text shows up here, not
 * in front of users. One row per rewording (conversion failures, missing positionals, extra
 * arguments, unknown options), and rows for the messages passed on as picocli words them.
 */
class UsageWordingTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        // A converter's own exception: its message, without picocli's "cannot convert ... (java.lang...)".
        "rdsend | --frame-size 1X h 1 k | 64 | rdsend: Invalid value for option '--frame-size': not a size: '1X' "
            + "(examples: 65536, 256K, 1M)",
        "rdsend | --connect-timeout 10x h 1 k | 64 | rdsend: Invalid value for option '--connect-timeout': not a "
            + "duration: '10x' (examples: 10s, 500ms, 2m, or a number of seconds)",
        "rdcp | --start-timeout 5x a h1:b | 64 | rdcp: Invalid value for option '--start-timeout': not a duration: "
            + "'5x' (examples: 10s, 500ms, 2m, or a number of seconds)",
        "rdsend | --transport bogus h 1 k | 64 | rdsend: Invalid value for option '--transport': unknown transport "
            + "'bogus' (expected auto, rdma or tcp)",
        // picocli's own conversions word it well enough: passed on.
        "rdrecv | --slots=x 1 k | 64 | rdrecv: Invalid value for option '--slots': 'x' is not an int",
        "rdcp | --port x a h1:b | 64 | rdcp: Invalid value for option '--port': 'x' is not an int",
        "rdflux | selftest --size big | 64 | rdflux: Invalid value for option '--size': 'big' is not an int",
        // Too few positionals: what is expected, by its label.
        "rdsend | '' | 64 | rdsend: missing arguments: expected HOST PORT [KEY] [FILE]",
        "rdsend | host | 64 | rdsend: missing arguments: expected HOST PORT [KEY] [FILE]",
        "rdrecv | '' | 64 | rdrecv: missing arguments: expected PORT [KEY] [FILE]",
        "rdcp | '' | 64 | rdcp: missing arguments: expected SRC... DST",
        "rdcp | a | 64 | rdcp: missing arguments: expected SRC... DST",
        "rdpipe | '' | 64 | rdpipe: missing arguments: expected SEGMENT",
        "rdflux | run | 64 | rdflux: missing arguments: expected PIPELINE.yaml",
        // An option without its value: passed on.
        "rdsend | h 1 k --slots | 64 | rdsend: Missing required parameter for option '--slots' (N)",
        // Extra positionals, one or several.
        "rdsend | h 1 k f extra | 64 | rdsend: too many arguments: 'extra'",
        "rdsend | h 1 k f x y | 64 | rdsend: too many arguments: 'x', 'y'",
        "rdrecv | 1 k f extra | 64 | rdrecv: too many arguments: 'extra'",
        "rdflux | plugins extra | 64 | rdflux: too many arguments: 'extra'",
        "rdflux | run a.yaml b.yaml | 64 | rdflux: too many arguments: 'b.yaml'",
        // Unknown options; a known one where an option's value was expected.
        "rdsend | -x h 1 k | 64 | rdsend: unknown option '-x'",
        "rdcp | --bogus a h1:b | 64 | rdcp: unknown option '--bogus'",
        "rdpipe | -vq h1:cat | 64 | rdpipe: unknown option '-q' (while processing option: '-vq')",
        "rdcp | -rz a h1:b | 64 | rdcp: unknown option '-z' (while processing option: '-rz')",
        "rdcp | -z -rz a h1:b | 64 | rdcp: unknown option '-z', '-z' (while processing option: '-rz')",
        "rdsend | --command --slots h 1 k | 64 | rdsend: Expected parameter for option '--command' but found '--slots'",
        "rdsend | --slots --bogus h 1 k | 64 | rdsend: Invalid value for option '--slots': '--bogus' is not an int",
        // Given twice: passed on.
        "rdsend | --slots 4 --slots 5 h 1 k | 64 | rdsend: option '--slots' (N) should be specified only once",
        // A word naming no subcommand of rdflux.
        "rdflux | bogus | 64 | rdflux: unknown command 'bogus' (commands: doctor, selftest, run, plugins, help)",
    })
    void eachMistakeHasItsOneLine(String tool, String args, int exit, String expected) {
        String[] argv = (tool + " " + args).trim().split(" +");
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run(argv);
        } finally {
            System.setErr(saved);
        }
        String err = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err).isEqualTo(exit);
        assertThat(err.lines().findFirst()).as(err).hasValue(expected);
        assertThat(err.lines().count()).as("the line and where --help is: %s", err).isEqualTo(2);
    }
}
