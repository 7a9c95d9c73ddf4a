package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.pipeline.TreeCopySource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tree source's options for rdcp's --bwlimit and remote wildcards, as the plugin builds the source. */
class TreeSourceOptionsTest {

    @TempDir
    Path dir;

    private TreeCopySource source(Map<String, Object> options) {
        PipelineConfig c = PipelineConfig.builder(PluginRegistry.builtins())
                .source("tree", options)
                .sink("tree", Map.of("path", dir.resolve("out").toString()))
                .build();
        return (TreeCopySource) c.source().plugin().create(c.source().values(),
                new PluginContext(1 << 20, PluginRegistry.builtins().codecs()));
    }

    @Test
    void bwlimitGivesTheSourceARateLimitOfThatRate() throws Exception {
        Files.writeString(dir.resolve("f"), "x");
        assertThat(source(Map.of("path", dir.resolve("f").toString(), "bwlimit", "20M")).limit().bytesPerSecond())
                .isEqualTo(20L << 20);
        assertThat(source(Map.of("path", dir.resolve("f").toString())).limit()).as("none by default").isNull();
    }

    @Test
    void aWildcardMatchingNothingIsAnErrorThatNamesIt() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "a");
        String pattern = dir.resolve("*.none").toString();
        assertThatThrownBy(() -> source(Map.of("paths", List.of(pattern), "glob", true)))
                .isInstanceOf(ConnectorException.class).hasMessage("no match for " + pattern);
        assertThat(source(Map.of("paths", List.of(dir.resolve("*.txt").toString()), "glob", true)).describe())
                .contains("a.txt");
    }
}
