package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/**
 * docs/user-guide.md's exit-code table, {@link ExitCode} and the tools' --help say the same:
 * every code the tools can return is documented, and nothing else is.
 */
class ExitCodesDocTest {

    private static final Path GUIDE = Path.of(System.getProperty("rdflux.home", "..")).resolve("docs/user-guide.md");

    @Test
    void theUserGuidesTableListsExactlyTheExitCodes() throws IOException, IllegalAccessException {
        assertThat(documented()).isEqualTo(declared());
    }

    @Test
    void everyCodeTheHelpNamesIsInTheTable() throws IOException {
        Set<Integer> table = documented();
        for (Object tool : new Object[] {new SendCommand(), new ReceiveCommand()}) {
            String help = new CommandLine(tool).getUsageMessage(CommandLine.Help.Ansi.OFF).replace('\n', ' ');
            Matcher section = Pattern.compile("Exit codes: (.*?)See docs/user-guide\\.md").matcher(help);
            assertThat(section.find()).as("an 'Exit codes:' paragraph in %s --help", tool).isTrue();
            Set<Integer> named = new TreeSet<>();
            Matcher n = Pattern.compile("\\b(\\d{1,3})\\b").matcher(section.group(1));
            while (n.find()) {
                named.add(Integer.parseInt(n.group(1)));
            }
            assertThat(table).containsAll(named);
            assertThat(named).contains(ExitCode.INTERRUPTED, ExitCode.TERMINATED, ExitCode.TEMP_FAIL);
        }
    }

    /** The codes in the first column of the table under "### Exit codes". */
    private static Set<Integer> documented() throws IOException {
        String guide = Files.readString(GUIDE);
        int start = guide.indexOf("### Exit codes");
        assertThat(start).as("an exit-code section in %s", GUIDE).isNotNegative();
        Set<Integer> codes = new TreeSet<>();
        for (String line : guide.substring(start).split("\n")) {
            Matcher row = Pattern.compile("^\\| ([0-9, /]+) \\|").matcher(line);
            if (row.find()) {
                for (String c : row.group(1).split("[, /]+")) {
                    codes.add(Integer.parseInt(c.trim()));
                }
            } else if (!codes.isEmpty() && !line.startsWith("|")) {
                break;
            }
        }
        return codes;
    }

    private static Set<Integer> declared() throws IllegalAccessException {
        Set<Integer> codes = new TreeSet<>();
        for (Field f : ExitCode.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                codes.add(f.getInt(null));
            }
        }
        return codes;
    }
}
