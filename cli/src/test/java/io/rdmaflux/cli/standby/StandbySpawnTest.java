package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The standby's command line, how it is detached, and what RDFLUX_STANDBY asks for. */
class StandbySpawnTest {

    @Test
    void commandIsTheJvmUpToTheJarThenStandbyKeyAndSeconds() {
        List<String> jvm = List.of("/opt/rdflux/runtime/bin/java", "-XX:+UseSerialGC", "-Xmx192m", "-jar",
                "/opt/rdflux/lib/rdma-flux.jar", "rdsend", "host", "9000", "key");
        assertThat(StandbySpawn.command(Optional.of(jvm), StandbyPlaceTest.KEY, Duration.ofMinutes(5)))
                .contains(List.of("/opt/rdflux/runtime/bin/java", "-XX:+UseSerialGC", "-Xmx192m", "-jar",
                        "/opt/rdflux/lib/rdma-flux.jar", "--standby", StandbyPlaceTest.KEY, "300"));
    }

    @Test
    void noJarNoCommand() {
        assertThat(StandbySpawn.command(Optional.of(List.of("/usr/bin/java", "-cp", "x", "Main")), "k", Duration.ofSeconds(9)))
                .isEmpty();
        assertThat(StandbySpawn.command(Optional.of(List.of("/usr/bin/java", "-jar")), "k", Duration.ofSeconds(9)))
                .isEmpty();
        assertThat(StandbySpawn.command(Optional.empty(), "k", Duration.ofSeconds(9))).isEmpty();
    }

    @Test
    void detachedInANewSessionAsTheForegroundChildOfItsLeader() {
        assertThat(StandbySpawn.detached("/usr/bin/setsid", List.of("/j/java", "-jar", "a b.jar")))
                .containsExactly("/usr/bin/setsid", "/bin/sh", "-c", "\"$@\"; :", "sh", "/j/java", "-jar", "a b.jar");
    }

    /**
     * Started as a standby is (with a shell in its place that reports on itself): in a session of
     * its own but not its leader, and SIGINT and SIGQUIT not ignored (a call's Ctrl-C must work).
     */
    @Test
    void theStartedProcessIsNoSessionLeaderAndTakesSigint(@TempDir Path dir) throws Exception {
        Optional<String> setsid = io.rdmaflux.connector.process.ProcessGroup.setsid();
        assumeTrue(setsid.isPresent(), "setsid is installed");
        Path report = dir.resolve("report");
        Process p = new ProcessBuilder(StandbySpawn.detached(setsid.get(), List.of("/bin/sh", "-c",
                        "{ cat /proc/$$/stat; grep '^SigIgn:' /proc/$$/status; } > \"$0\"", report.toString())))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> lines = Files.readAllLines(report);
        String[] stat = lines.get(0).substring(lines.get(0).lastIndexOf(')') + 2).split(" ");
        long pid = Long.parseLong(lines.get(0).substring(0, lines.get(0).indexOf(' ')));
        long session = Long.parseLong(stat[3]);
        assertThat(session).as("a session of its own").isNotEqualTo(sessionOf(ProcessHandle.current().pid()));
        assertThat(session).as("not its leader").isNotEqualTo(pid);
        String sigIgn = lines.stream().filter(l -> l.startsWith("SigIgn:")).findFirst().orElseThrow();
        long ignored = Long.parseLong(sigIgn.replace("SigIgn:", "").strip(), 16);
        assertThat(ignored & (1L << (2 - 1))).as("SIGINT not ignored").isZero();
        assertThat(ignored & (1L << (3 - 1))).as("SIGQUIT not ignored").isZero();
    }

    private static long sessionOf(long pid) throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]);
    }

    @Test
    void rdfluxStandbyTurnsItOffOrSetsTheIdleTime() {
        assertThat(StandbySpawn.idle(Map.of())).contains(Duration.ofMinutes(5));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "yes"))).contains(Duration.ofMinutes(5));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "30s"))).contains(Duration.ofSeconds(30));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "2m"))).contains(Duration.ofMinutes(2));
        for (String off : List.of("no", "off", "0", "false", "NO", "10ms")) {
            assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", off))).as(off).isEmpty();
            assertThat(StandbySpawn.notUnderstood(Map.of("RDFLUX_STANDBY", off))).as(off).isNull();
        }
        for (String on : List.of("", "yes", "On", "30s", "2m")) {
            assertThat(StandbySpawn.notUnderstood(Map.of("RDFLUX_STANDBY", on))).as(on).isNull();
        }
        assertThat(StandbySpawn.notUnderstood(Map.of())).isNull();
    }

    /** A typo (RDFLUX_STANDBY=of) is not taken silently for off: the default applies, and one line says so. */
    @Test
    void aValueNotUnderstoodLeavesTheDefaultAndSaysWhatIsUnderstood() {
        for (String typo : List.of("of", "soon", "5 min", "-1s")) {
            assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", typo))).as(typo).contains(Duration.ofMinutes(5));
        }
        assertThat(StandbySpawn.notUnderstood(Map.of("RDFLUX_STANDBY", "of"))).isEqualTo("warning: RDFLUX_STANDBY=of"
                + " is not understood (no, off, 0 or false: off; yes, on, true or a duration such as 30s or 2m: on),"
                + " so the default applies: on, a standby waits 5m");
        assertThat(StandbySpawn.notUnderstood(Map.of("RDFLUX_STANDBY", "o\u001b[2Jf\n")))
                .as("no escape or line break of the value reaches the terminal").doesNotContain("\u001b", "\n");
    }

    @Test
    void aColdRunWithoutAKeyOrWithStandbysOffStartsNone() {
        assertThat(StandbySpawn.afterColdRun(Map.of("HOME", "/nonexistent-home"))).isNotNull();
        assertThat(StandbySpawn.afterColdRun(Map.of("HOME", "/nonexistent-home", "RDFLUX_STANDBY_KEY",
                StandbyPlaceTest.KEY, "RDFLUX_STANDBY", "no"))).isNotNull();
    }
}
