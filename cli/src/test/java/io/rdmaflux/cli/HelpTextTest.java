package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What every --help prints, as picocli renders it at 80 columns (no terminal). */
class HelpTextTest {

    /** Every command and subcommand's usage text, as Main builds them. */
    static List<String> everyHelp() {
        List<String> helps = new ArrayList<>();
        for (Object tool : new Object[] {new SendCommand(), new ReceiveCommand(), new RdcpCommand(), new PipeCommand(),
            new Main.RdfluxCommand()}) {
            CommandLine cl = new CommandLine(tool);
            helps.add(cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
            for (CommandLine sub : cl.getSubcommands().values()) {
                helps.add(sub.getUsageMessage(CommandLine.Help.Ansi.OFF));
            }
        }
        return helps;
    }

    @Test
    void variablesInTheTextAreShownNotInterpolated() {
        String run = new CommandLine(new RunCommand()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(run).contains("${VAR} and ${VAR:-default}").doesNotContain("null and default");
        for (String help : everyHelp()) {
            assertThat(help).doesNotContain("null");
        }
    }
}
