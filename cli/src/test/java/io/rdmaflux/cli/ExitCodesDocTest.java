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
 * docs/user-guide.md's exit-code table, {@link ExitCode} and every --help say the same:
 * every code the tools can return is documented, and nothing else is.
 */
class ExitCodesDocTest {

    private static final Path GUIDE = Path.of(System.getProperty("rdflux.home", "..")).resolve("docs/user-guide.md");

    @Test
    void theUserGuidesTableListsExactlyTheExitCodes() throws IOException, IllegalAccessException {
        assertThat(documented()).isEqualTo(declared());
    }

    @Test
    void everyHelpListsEveryCode() throws IllegalAccessException {
        Set<Integer> codes = declared();
        for (CommandLine cl : HelpTextTest.everyCommand()) {
            String help = HelpTextTest.help(cl);
            int section = help.indexOf("Exit codes (see docs/user-guide.md):");
            assertThat(section).as("an exit-code list in %s --help", cl.getCommandName()).isNotNegative();
            Set<Integer> listed = new TreeSet<>();
            Matcher row = Pattern.compile("(?m)^ *(\\d{1,3})  ").matcher(help.substring(section));
            while (row.find()) {
                listed.add(Integer.parseInt(row.group(1)));
            }
            assertThat(listed).as("the codes %s --help lists", cl.getCommandName()).isEqualTo(codes);
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
