package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.plugin.PipelineConfig;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A warm agent's job is checked and built in its session's environment, not the daemon JVM's:
 * a receive without a key takes the session's RDFLUX_KEY, a key-env names a session variable,
 * and a path's ~ is the session's HOME. The test JVM has none of these variables (and its own
 * HOME), so a job read in the JVM's environment fails or lands elsewhere.
 */
class AgentPipelinesEnvironmentTest {

    private static final String VAR = "RDFLUX_TEST_SESSION_KEY_" + ProcessHandle.current().pid();

    @Test
    void aReceiveWithoutAKeyTakesTheSessionsRdfluxKey() {
        assertThat(System.getenv("RDFLUX_KEY")).as("the test JVM has no key of its own").isNull();
        PipelineConfig config = AgentPipelines.config(receiveTo("/tmp/x", Map.of()), PluginRegistry.builtins(), false,
                Map.of("RDFLUX_KEY", "the session's key"));
        assertThat(config.source().plugin().name()).isEqualTo("receive");
        assertThatThrownBy(() -> AgentPipelines.config(receiveTo("/tmp/x", Map.of()), PluginRegistry.builtins(), false,
                Map.of())).as("a session without a key has none").isInstanceOf(ConfigException.class)
                .hasMessageContaining("no key");
    }

    @Test
    void aKeyEnvNamesASessionVariable() {
        assertThat(System.getenv(VAR)).isNull();
        AgentPipelines.config(receiveTo("/tmp/x", Map.of("key-env", VAR)), PluginRegistry.builtins(), false,
                Map.of(VAR, "k"));
        assertThatThrownBy(() -> AgentPipelines.config(receiveTo("/tmp/x", Map.of("key-env", VAR)),
                PluginRegistry.builtins(), false, Map.of("RDFLUX_KEY", "other")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(VAR + " is not set");
    }

    @Test
    void aPathsTildeIsTheSessionsHome() {
        PipelineConfig config = AgentPipelines.config(receiveTo("~/out", Map.of("key", "k")), PluginRegistry.builtins(),
                false, Map.of("HOME", "/session/home"));
        assertThat(path(config)).isEqualTo(Path.of("/session/home/out"));
    }

    private static Map<String, Object> receiveTo(String path, Map<String, Object> source) {
        Map<String, Object> receive = new java.util.HashMap<>(source);
        receive.put("type", "receive");
        receive.put("port", 0);
        return Map.of("source", receive, "sink", Map.of("type", "file", "path", path));
    }

    @SuppressWarnings("unchecked")
    private static Path path(PipelineConfig config) {
        OptionSpec<Path> spec = (OptionSpec<Path>) config.sink().plugin().options().stream()
                .filter(o -> o.name().equals("path")).findFirst().orElseThrow();
        return config.sink().values().get(spec);
    }
}
