package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.pipeline.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ${VAR}} in a command plugin's {@code command} reaches the command as data, in its
 * environment, never as shell text: real commands run by a real pipeline.
 */
class CommandVariablesTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final PluginRegistry PLUGINS = PluginRegistry.builtins();
    /** Shell syntax of every kind: a command after ';', a substitution, quotes of both kinds. */
    private static final String HOSTILE = "it's \"q\" $(touch pwned2) `touch pwned3` x; touch pwned #";

    @TempDir
    Path dir;

    @Test
    void aValueIsPassedToTheCommandNeverRunAsShellText() throws Exception {
        String out = run("printf '[%s]' \"${P}\" '${P}' ${P}", Map.of("P", HOSTILE));
        assertThat(dir.resolve("pwned")).doesNotExist();
        assertThat(dir.resolve("pwned2")).doesNotExist();
        assertThat(dir.resolve("pwned3")).doesNotExist();
        // Quoted (double or single), one word as written; unquoted, split into words as a shell splits.
        assertThat(out).isEqualTo("[" + HOSTILE + "][" + HOSTILE + "][it's][\"q\"][$(touch][pwned2)][`touch][pwned3`]"
                + "[x;][touch][pwned][#]");
    }

    @Test
    void aDefaultIsPassedTheSameWay() throws Exception {
        assertThat(run("printf '%s' \"${MISSING:-a;b $(touch pwned)}\"", Map.of()))
                .isEqualTo("a;b $(touch pwned)");
        assertThat(dir.resolve("pwned")).doesNotExist();
    }

    @Test
    void aNameTheEnvOptionSetsTooIsAnError() {
        assertThatThrownBy(() -> PipelineConfig.parse("""
                source:
                  type: command
                  command: echo "${P}"
                  env: [P=other]
                sink: stdout
                """, "p.yaml", PLUGINS, Map.of("P", "v")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("source.env[0]: P is set here and used as ${P} in command");
    }

    @Test
    void otherValuesAreStillExpandedInPlace() throws Exception {
        // argv runs no shell: the value is one argument as it is.
        PipelineConfig c = PipelineConfig.parse("""
                source:
                  type: command
                  argv: [printf, '%s', "${P}"]
                sink: {type: file, path: "${DIR}/out"}
                """, "p.yaml", PLUGINS, Map.of("P", HOSTILE, "DIR", dir.toString()));
        c.toPipeline().run().block(LIMIT);
        assertThat(Files.readString(dir.resolve("out"), StandardCharsets.UTF_8)).isEqualTo(HOSTILE);
    }

    /** Runs a command source with {@code command} in the temporary directory; its output. */
    private String run(String command, Map<String, String> env) throws Exception {
        Path out = dir.resolve("out");
        Files.deleteIfExists(out);
        String yaml = "source:\n  type: command\n  directory: " + quote(dir.toString()) + "\n  command: "
                + quote(command) + "\nsink:\n  type: file\n  path: " + quote(out.toString()) + "\n";
        PipelineConfig.parse(yaml, "p.yaml", PLUGINS, env).toPipeline().run().block(LIMIT);
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** A YAML double-quoted scalar. */
    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
