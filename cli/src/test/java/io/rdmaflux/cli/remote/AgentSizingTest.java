package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AgentSizing} repeats bin/rdflux-launch's direct-memory formula (a warm agent declines a
 * session by it): the launcher itself is run here with a stand-in {@code java} that writes down
 * its arguments, so the two cannot drift apart unnoticed.
 */
class AgentSizingTest {

    private static final Path LAUNCHER =
            Path.of(System.getProperty("rdflux.home", "..")).toAbsolutePath().normalize().resolve("bin/rdflux");

    @TempDir
    Path dir;

    @Test
    void theLimitIsTheOneTheLauncherGives() throws Exception {
        int cores = onlineCores();
        for (List<String> words : List.of(List.<String>of(), List.of("--frame-size", "8388608", "--slots", "40"),
                List.of("--frame-size", "65536", "--slots", "4"), List.of("--frame-size", "134217728", "--slots", "9999"))) {
            assertThat(launcherLimit(words)).as(words.toString())
                    .isEqualTo(AgentSizing.of(words).launcherLimit(cores));
        }
    }

    @Test
    void theDefaultsPutNoWordsOnTheCommandLine() {
        assertThat(AgentSizing.DEFAULT.words()).isEmpty();
        assertThat(AgentSizing.of(List.of("--slots", "32")).words()).isEqualTo(" --frame-size 1048576 --slots 32");
        assertThat(AgentSizing.of(List.of("--frame-size", "x1", "--slots", "-3"))).isEqualTo(AgentSizing.DEFAULT);
    }

    /** -XX:MaxDirectMemorySize as the launcher hands it to java for {@code rdflux agent WORDS}. */
    private long launcherLimit(List<String> words) throws Exception {
        Path jdk = Files.createDirectories(dir.resolve("jdk/bin"));
        Path args = dir.resolve("args");
        Path java = jdk.resolve("java");
        Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + args + "'\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        Path jar = Files.createFile(dir.resolve("stand-in-" + System.nanoTime() + ".jar"));
        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "agent");
        pb.command().addAll(words);
        pb.environment().clear();
        pb.environment().putAll(Map.of("PATH", "/usr/bin:/bin", "HOME", dir.toString(),
                "JAVA_HOME", dir.resolve("jdk").toString(), "RDFLUX_JAR", jar.toString(),
                "RDFLUX_STANDBY", "no", "RDFLUX_WARM_AGENT", "no"));
        Process p = pb.redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out"))).isZero();
        String limit = Files.readAllLines(args, StandardCharsets.UTF_8).stream()
                .filter(a -> a.startsWith("-XX:MaxDirectMemorySize=")).findFirst().orElseThrow();
        return Long.parseLong(limit.substring(limit.indexOf('=') + 1));
    }

    /** The online CPUs, as the launcher counts them. */
    private static int onlineCores() throws Exception {
        Process p = new ProcessBuilder("getconf", "_NPROCESSORS_ONLN").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return Integer.parseInt(out);
    }
}
