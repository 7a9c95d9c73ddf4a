package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;

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
    void detachedInANewSessionWhoseLeaderIsAShellThatLeaves() {
        assertThat(StandbySpawn.detached("/usr/bin/setsid", List.of("/j/java", "-jar", "a b.jar")))
                .containsExactly("/usr/bin/setsid", "/bin/sh", "-c", "\"$@\" &", "sh", "/j/java", "-jar", "a b.jar");
    }

    @Test
    void rdfluxStandbyTurnsItOffOrSetsTheIdleTime() {
        assertThat(StandbySpawn.idle(Map.of())).contains(Duration.ofMinutes(5));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "yes"))).contains(Duration.ofMinutes(5));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "30s"))).contains(Duration.ofSeconds(30));
        assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", "2m"))).contains(Duration.ofMinutes(2));
        for (String off : List.of("no", "off", "0", "false", "NO", "soon", "10ms")) {
            assertThat(StandbySpawn.idle(Map.of("RDFLUX_STANDBY", off))).as(off).isEmpty();
        }
    }

    @Test
    void aColdRunWithoutAKeyOrWithStandbysOffStartsNone() {
        assertThat(StandbySpawn.afterColdRun(Map.of("HOME", "/nonexistent-home"))).isNotNull();
        assertThat(StandbySpawn.afterColdRun(Map.of("HOME", "/nonexistent-home", "RDFLUX_STANDBY_KEY",
                StandbyPlaceTest.KEY, "RDFLUX_STANDBY", "no"))).isNotNull();
    }
}
