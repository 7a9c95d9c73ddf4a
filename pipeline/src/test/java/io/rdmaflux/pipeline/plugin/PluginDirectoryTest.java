package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plugins found in a directory of jars, their list options, and jars that cannot be loaded. */
class PluginDirectoryTest {

    @TempDir
    Path dir;

    /** A jar whose services file names {@code provider} as a source plugin. */
    private Path jar(String name, String provider) throws IOException {
        Path jar = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry("META-INF/services/" + SourcePlugin.class.getName()));
            j.write((provider + "\n").getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void aPluginFromTheDirectoryWithListOptions() throws IOException {
        jar("words.jar", ListSourcePlugin.class.getName());
        PluginRegistry plugins = PluginRegistry.load(dir);
        assertThat(plugins.sources()).extracting(Plugin::name).containsExactly("file", "stdin", "receive", "tree", "tree-listing", "command", "empty", "words");
        assertThat(PluginRegistry.builtins().source("words")).isEmpty();

        List<String> errors = errors(plugins, """
                source:
                  type: words
                  words: zfs recv tank
                  sizes:
                    - 4K
                    - lots
                    - {a: b}
                sink: stdout
                """);
        assertThat(errors).containsExactly(
                "p.yaml:3: source.words: expected a list (each item a string), got 'zfs recv tank'",
                "p.yaml:6: source.sizes[1]: expected a size from 0 to 1M (such as 64K or 4M), got 'lots'");

        Path out = dir.resolve("out.txt");
        PipelineConfig c = PipelineConfig.parse("""
                source: {type: words, words: [zfs, recv, "tank/fs"], sizes: [1K]}
                sink: {type: file, path: %s}
                """.formatted(out), "p.yaml", plugins, Map.of());
        assertThat(c.source().values().get(ListSourcePlugin.WORDS)).containsExactly("zfs", "recv", "tank/fs");
        assertThat(c.source().values().get(ListSourcePlugin.SIZES)).containsExactly(1024L);
        c.toPipeline().run().block(Duration.ofSeconds(30));
        assertThat(Files.readString(out)).isEqualTo("zfs\nrecv\ntank/fs\n");

        PipelineConfig built = PipelineConfig.builder(plugins)
                .source("words", Map.of("words", List.of("a", "b")))
                .sink("file", Map.of("path", out.toString()))
                .build();
        assertThat(built.source().values().get(ListSourcePlugin.WORDS)).containsExactly("a", "b");
    }

    @Test
    void aJarThatCannotBeLoadedIsOneClearError() throws IOException {
        jar("broken.jar", "com.example.NoSuchPlugin");
        assertThatThrownBy(() -> PluginRegistry.load(dir))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.errors()).hasSize(1);
                    assertThat(e.errors().get(0).toString()).startsWith(dir + ": cannot load a plugin: ")
                            .contains("com.example.NoSuchPlugin").doesNotContain("\n");
                });
    }

    @Test
    void aMissingOrEmptyDirectoryHoldsNoPlugins() {
        assertThat(PluginRegistry.load(dir.resolve("nowhere")).sources()).extracting(Plugin::name)
                .containsExactly("file", "stdin", "receive", "tree", "tree-listing", "command", "empty");
        assertThat(PluginRegistry.load(dir).sinks()).extracting(Plugin::name).containsExactly("file", "stdout", "send", "tree", "command");
        assertThat(PluginRegistry.defaultDirectory(Map.of("RDFLUX_PLUGINS", "/opt/p"))).isEqualTo(Path.of("/opt/p"));
        assertThat(PluginRegistry.defaultDirectory(Map.of()))
                .isEqualTo(Path.of(System.getProperty("user.home"), ".config", "rdflux", "plugins"));
        // ~ is $HOME when it is set, as in a shell.
        assertThat(PluginRegistry.defaultDirectory(Map.of("HOME", "/home/other")))
                .isEqualTo(Path.of("/home/other/.config/rdflux/plugins"));
    }

    private static List<String> errors(PluginRegistry plugins, String yaml) {
        try {
            PipelineConfig.parse(yaml, "p.yaml", plugins, Map.of());
        } catch (ConfigException e) {
            return e.errors().stream().map(ConfigError::toString).toList();
        }
        throw new AssertionError("expected errors");
    }
}
