package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The options rsync and scp users type from habit, as rdcp reads them (no copy runs here). */
class CopyHabitsTest {

    @TempDir
    Path dir;

    private static RdcpCommand parse(String... args) {
        RdcpCommand c = new RdcpCommand();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void archiveIsRecursiveAndVerbosityCounts() {
        RdcpCommand av = parse("-av", "src", "h:dst");
        av.checkOptions();
        assertThat(av.recursive).as("-a as rsync's: -r among others").isTrue();
        assertThat(av.flags.verbosity).isEqualTo(1);
        assertThat(av.flags.verbose).isTrue();

        RdcpCommand vv = parse("-vv", "-n", "src", "h:dst");
        assertThat(vv.flags.verbosity).as("-vv is more detail, not an error").isEqualTo(2);
        assertThat(vv.habits.dryRun).isTrue();
        assertThat(parse("-v", "--verbose", "a", "b").flags.verbosity).isEqualTo(2);
        assertThat(parse("a", "b").flags.verbose).isFalse();
    }

    @Test
    void checksumImpliesSync() {
        RdcpCommand c = parse("-c", "-r", "src", "h:dst");
        c.checkOptions();
        assertThat(c.sync).isTrue();
    }

    @Test
    void deleteNeedsRecursionAndADirectory() throws Exception {
        assertThatThrownBy(() -> parse("--delete", "src/", "h:dst").checkOptions()).isInstanceOf(UsageException.class)
                .hasMessage("--delete removes files inside copied directories: it needs -r (or -a)");
        Path file = Files.writeString(dir.resolve("one file"), "x");
        RdcpCommand c = parse("-r", "--delete", file.toString(), "h:dst");
        c.checkOptions();
        assertThatThrownBy(() -> c.habits.checkDelete(c.delete, c.plan())).isInstanceOf(UsageException.class)
                .hasMessage("--delete with a single file SRC (" + file + "): it removes files inside copied "
                        + "directories only");
        RdcpCommand tree = parse("-a", "--delete", dir + "/", "h:dst");
        tree.checkOptions();
        tree.habits.checkDelete(tree.delete, tree.plan());
    }

    @Test
    void bwlimitTakesRsyncsUnits() {
        assertThat(CopyHabits.RateConverter.parse("500")).as("a plain number is KiB/s").isEqualTo(500 * 1024);
        assertThat(CopyHabits.RateConverter.parse("1.5K")).isEqualTo(1536);
        assertThat(CopyHabits.RateConverter.parse("20m")).isEqualTo(20L << 20);
        assertThat(CopyHabits.RateConverter.parse("2G")).isEqualTo(2L << 30);
        assertThat(CopyHabits.RateConverter.parse("10MiB")).isEqualTo(10L << 20);
        assertThat(CopyHabits.RateConverter.parse("0")).as("no limit").isZero();
        assertThat(parse("--bwlimit", "4M", "a", "h:b").habits.bwlimit).isEqualTo(4L << 20);
        assertThatThrownBy(() -> CopyHabits.RateConverter.parse("fast")).hasMessageContaining("not a rate: 'fast'");
        assertThatThrownBy(() -> CopyHabits.RateConverter.parse("0.1")).hasMessageContaining("rate too small");
        assertThatThrownBy(() -> parse("--bwlimit", "-5", "a", "h:b"))
                .isInstanceOf(CommandLine.ParameterException.class);
    }
}
