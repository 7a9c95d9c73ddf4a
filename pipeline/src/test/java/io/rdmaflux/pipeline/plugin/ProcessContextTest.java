package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pipeline's commands run in the {@link ProcessContext} it is given: its environment over this
 * process's (the command's own {@code env} on top), its stderr lines where it says. What a warm
 * agent gives each ssh session it serves in one JVM; real processes, real files.
 */
class ProcessContextTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void commandsGetTheContextsEnvironmentAndTheirStderrGoesToIt() throws Exception {
        Path out = dir.resolve("out");
        PipelineConfig c = PipelineConfig.parse("source:\n  type: command\n  command: \"printf '%s %s %s' \\\"$RDFLUX_T1\\\" "
                + "\\\"$RDFLUX_T2\\\" \\\"$HOME\\\"; echo oops >&2\"\n  env: [RDFLUX_T2=own]\n"
                + "sink:\n  type: file\n  path: \"" + out + "\"\n", "p.yaml", PluginRegistry.builtins(), Map.of());
        List<String> stderr = new CopyOnWriteArrayList<>();
        c.toPipeline(null, new ProcessContext(Map.of("RDFLUX_T1", "session", "RDFLUX_T2", "session", "HOME", "/session/home"),
                stderr::add)).run().block(LIMIT);
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEqualTo("session own /session/home");
        assertThat(stderr).anyMatch(l -> l.contains("oops"));
    }

    @Test
    void aSessionsCommandsSeeItsWholeEnvironmentAndNothingOfThisProcesss() throws Exception {
        assertThat(System.getenv("HOME")).as("this process has a HOME to leak").isNotNull();
        Path out = dir.resolve("out");
        PipelineConfig c = PipelineConfig.parse("source:\n  type: command\n  command: \"printf '%s %s %s' \\\"$RDFLUX_T1\\\" "
                + "\\\"$${HOME-unset}\\\" \\\"$RDFLUX_T2\\\"\"\n  env: [RDFLUX_T2=own]\n"
                + "sink:\n  type: file\n  path: \"" + out + "\"\n", "p.yaml", PluginRegistry.builtins(), Map.of());
        ProcessContext session = ProcessContext.session(Map.of("RDFLUX_T1", "session", "PATH", System.getenv("PATH")), null);
        c.toPipeline(null, session).run().block(LIMIT);
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEqualTo("session unset own");
        assertThat(session.variable("HOME")).isNull();
        assertThat(session.view()).containsOnlyKeys("RDFLUX_T1", "PATH");
    }

    @Test
    void withoutAContextCommandsSeeThisProcesssEnvironment() throws Exception {
        Path out = dir.resolve("out");
        PipelineConfig c = PipelineConfig.parse("source:\n  type: command\n  command: \"printf %s \\\"$HOME\\\"\"\n"
                + "sink:\n  type: file\n  path: \"" + out + "\"\n", "p.yaml", PluginRegistry.builtins(), Map.of());
        c.toPipeline().run().block(LIMIT);
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEqualTo(System.getenv("HOME"));
    }
}
