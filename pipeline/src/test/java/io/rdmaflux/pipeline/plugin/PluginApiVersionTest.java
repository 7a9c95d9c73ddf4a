package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugin jars, compiled and packed here, that declare the plugin API they were built for in
 * their manifests: the registry runs the compatible ones and leaves the others out with one line
 * naming the jar, the plugin, its version and ours.
 */
class PluginApiVersionTest {

    private static final String PLUGIN = "s3.S3SourcePlugin";

    @TempDir
    Path dir;

    private Path plugins;
    private Path classes;

    @BeforeEach
    void compilePlugin() throws IOException {
        plugins = Files.createDirectory(dir.resolve("plugins"));
        Path src = dir.resolve("src/s3/S3SourcePlugin.java");
        classes = Files.createDirectories(dir.resolve("classes"));
        Files.createDirectories(src.getParent());
        // Its class initializer leaves a mark: a refused jar's classes must never load.
        Files.writeString(src, """
                package s3;
                public class S3SourcePlugin implements io.rdmaflux.pipeline.plugin.SourcePlugin {
                    static {
                        try {
                            java.nio.file.Files.writeString(java.nio.file.Path.of(%s), "loaded");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                    public String name() { return "s3"; }
                    public String description() { return "Reads an object of a bucket."; }
                    public java.util.List<io.rdmaflux.pipeline.config.OptionSpec<?>> options() { return java.util.List.of(); }
                    public io.rdmaflux.pipeline.PipelineSource create(io.rdmaflux.pipeline.config.OptionValues v,
                            io.rdmaflux.pipeline.plugin.PluginContext c) { return null; }
                }
                """.formatted("\"" + dir.resolve("loaded") + "\""));
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
                "-cp", System.getProperty("java.class.path"), src.toString());
        assertThat(rc).as("javac").isZero();
    }

    /** The plugin's jar in the plugin directory, declaring {@code api} (no attribute when null). */
    private void jar(String name, String api) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (api != null) {
            manifest.getMainAttributes().putValue(PluginApi.ATTRIBUTE, api);
        }
        try (OutputStream out = Files.newOutputStream(plugins.resolve(name));
             JarOutputStream j = new JarOutputStream(out, manifest); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                j.putNextEntry(new JarEntry(classes.relativize(f).toString()));
                j.write(Files.readAllBytes(f));
                j.closeEntry();
            }
            j.putNextEntry(new JarEntry("META-INF/services/" + SourcePlugin.class.getName()));
            j.write((PLUGIN + "\n").getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
    }

    @Test
    void aJarBuiltForOurApiOrBeforeVersioningRuns() throws IOException {
        jar("s3.jar", PluginApi.version());
        assertThat(PluginRegistry.load(plugins).source("s3")).isPresent();
        assertThat(PluginRegistry.load(plugins).skipped()).isEmpty();

        Files.delete(plugins.resolve("s3.jar"));
        jar("s3-old.jar", null);
        PluginRegistry registry = PluginRegistry.load(plugins);
        assertThat(registry.source("s3")).isPresent();
        assertThat(registry.origin(registry.source("s3").get())).isEqualTo("s3-old.jar");
    }

    @Test
    void aJarBuiltForANewerApiIsLeftOutBeforeItsClassesLoadAndAPipelineThatNeedsItFails() throws IOException {
        String newer = PluginApi.MAJOR + "." + (PluginApi.MINOR + 1);
        jar("s3.jar", newer);
        PluginRegistry registry = PluginRegistry.load(plugins);

        String line = "s3.jar (plugin " + PLUGIN + " was built for plugin API " + newer
                + "; this rdflux has plugin API " + PluginApi.version() + ": use a newer rdflux)";
        assertThat(registry.skipped()).containsExactly(line);
        assertThat(registry.source("s3")).isEmpty();
        assertThat(dir.resolve("loaded")).as("the refused plugin's class initializer ran").doesNotExist();

        // The built-ins still serve; only a pipeline that needs the plugin fails, naming the refusal.
        assertThat(PipelineConfig.parse("source: {type: file, path: in}\nsink: stdout\n", "p.yaml", registry, Map.of())
                .source().plugin().name()).isEqualTo("file");
        ConfigException e = catchThrowableOfType(() -> PipelineConfig.parse("source: s3\nsink: stdout\n", "p.yaml",
                registry, Map.of()), ConfigException.class);
        assertThat(e.errors()).extracting(ConfigError::toString).singleElement().asString()
                .startsWith("p.yaml:1: source.type: unknown source type 's3'")
                .endsWith("; plugin jars skipped: " + line)
                .doesNotContain("\n");
    }

    @Test
    void aJarOfAnotherMajorVersionOrAMalformedOneIsLeftOutToo() throws IOException {
        String newerMajor = (PluginApi.MAJOR + 1) + ".0";
        String older = (PluginApi.MAJOR - 1) + ".5";
        jar("a-newer.jar", newerMajor);
        jar("b-older.jar", older);
        jar("c-bad.jar", "one");
        assertThat(PluginRegistry.load(plugins).skipped()).containsExactly(
                "a-newer.jar (plugin " + PLUGIN + " was built for plugin API " + newerMajor + "; this rdflux has plugin API "
                        + PluginApi.version() + ": use a newer rdflux)",
                "b-older.jar (plugin " + PLUGIN + " was built for plugin API " + older + "; this rdflux has plugin API "
                        + PluginApi.version() + " and no longer runs it)",
                "c-bad.jar (plugin " + PLUGIN + " declares plugin API 'one' (Rdflux-Plugin-Api in its manifest), "
                        + "which is not MAJOR.MINOR; this rdflux has plugin API " + PluginApi.version() + ")");
        assertThat(dir.resolve("loaded")).doesNotExist();
    }
}
