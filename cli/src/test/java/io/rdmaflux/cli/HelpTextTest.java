package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What every --help prints, as picocli renders it at 80 columns (no terminal). */
class HelpTextTest {

    static final List<String> TOOLS = List.of("rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux");

    /** Every tool's and subcommand's command line, as Main configures them. */
    static List<CommandLine> everyCommand() {
        List<CommandLine> all = new ArrayList<>();
        for (String tool : TOOLS) {
            CommandLine cl = Main.commandLine(tool);
            all.add(cl);
            all.addAll(cl.getSubcommands().values());
        }
        return all;
    }

    static String help(CommandLine cl) {
        return cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    @Test
    void variablesInTheTextAreShownNotInterpolated() {
        String run = help(Main.commandLine("rdflux").getSubcommands().get("run"));
        assertThat(run).contains("${VAR} and ${VAR:-default}").doesNotContain("null and default");
        for (CommandLine cl : everyCommand()) {
            assertThat(help(cl)).doesNotContain("null");
        }
    }

    @Test
    void noExampleIsWrapped() {
        for (CommandLine cl : everyCommand()) {
            List<String> lines = help(cl).lines().toList();
            for (String line : cl.getCommandSpec().usageMessage().footer()) {
                if (line.startsWith("  ")) {
                    assertThat(lines).as("%s --help: %s", cl.getCommandName(), line).contains(line.stripTrailing());
                }
            }
        }
    }

    @Test
    void rdfluxNamesEveryTool() {
        String rdflux = help(Main.commandLine("rdflux")).replace('\n', ' ').replaceAll(" +", " ");
        assertThat(rdflux).contains("Tools: rdsend, rdrecv, rdcp, rdpipe");
    }
}
