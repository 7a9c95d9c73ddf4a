package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
    void aJarThatCannotBeLoadedIsSkippedAndTheOthersServe() throws IOException {
        jar("broken.jar", "com.example.NoSuchPlugin");
        jar("words.jar", ListSourcePlugin.class.getName());
        PluginRegistry plugins = PluginRegistry.load(dir);
        assertThat(plugins.source("words")).isPresent();
        assertThat(plugins.skipped()).singleElement().asString().startsWith("broken.jar (class com.example.NoSuchPlugin not "
                + "found (META-INF/services/" + SourcePlugin.class.getName() + " names it))");

        // Only a pipeline that needs a type no usable jar gave fails, and it says a jar was skipped.
        assertThat(PipelineConfig.parse("source: {type: words, words: [a]}\nsink: stdout\n", "p.yaml", plugins, Map.of())
                .source().plugin()).isInstanceOf(ListSourcePlugin.class);
        assertThat(errors(plugins, "source: {type: nosuch}\nsink: stdout\n")).singleElement().asString()
                .startsWith("p.yaml:1: source.type: unknown source type 'nosuch' (source types: ")
                .endsWith("; plugin jars skipped: broken.jar (class com.example.NoSuchPlugin not found (META-INF/services/"
                        + SourcePlugin.class.getName() + " names it))");
    }

    /** Each of these is one jar's only fault; the jar is left out and the reason names the class. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Throwing          | Throwing() threw IllegalStateException: no config",
        "NullOptions       | NullOptions.options() returned null or a list holding null",
        "NullDescription   | NullDescription.description() returned null",
        "ThrowingName      | ThrowingName threw UnsupportedOperationException: later describing itself",
        "NoPublicConstructor | NoPublicConstructor has no public constructor without arguments",
        "NotAPlugin        | NotAPlugin is not a SourcePlugin (META-INF/services/io.rdmaflux.pipeline.plugin.SourcePlugin)",
    })
    void aPluginThatCannotDescribeItselfIsSkipped(String provider, String reason) throws IOException {
        String name = BrokenPlugins.class.getName() + "$" + provider;
        jar("bad.jar", name);
        PluginRegistry plugins = PluginRegistry.load(dir);
        assertThat(plugins.skipped()).containsExactly("bad.jar (" + BrokenPlugins.class.getName() + "$" + reason + ")");
        assertThat(plugins.sources()).extracting(Plugin::name)
                .containsExactly("file", "stdin", "receive", "tree", "tree-listing", "command", "empty");
    }

    @Test
    void aFileThatIsNotAJarIsSkippedWithItsReason() throws IOException {
        Files.writeString(dir.resolve("junk.jar"), "junk\n");
        assertThat(PluginRegistry.load(dir).skipped()).singleElement().asString().startsWith("junk.jar (not a readable jar (");
    }

    /** A jar whose classes need a skipped jar's is skipped too, instead of failing later. */
    @Test
    void aJarThatNeedsASkippedJarIsSkippedToo() throws IOException {
        Path lib = compile("lib", "lib.Helper", "package lib; public class Helper { public String name() { return \"helped\"; } }");
        Path uses = compile("uses", "uses.UsesHelper", """
                package uses;
                public class UsesHelper implements io.rdmaflux.pipeline.plugin.SourcePlugin {
                    private final lib.Helper helper = new lib.Helper();
                    public String name() { return helper.name(); }
                    public String description() { return "needs lib"; }
                    public java.util.List<io.rdmaflux.pipeline.config.OptionSpec<?>> options() { return java.util.List.of(); }
                    public io.rdmaflux.pipeline.PipelineSource create(io.rdmaflux.pipeline.config.OptionValues v,
                            io.rdmaflux.pipeline.plugin.PluginContext c) { return null; }
                }
                """, lib);
        jarOf(lib, "a-lib.jar", "com.example.Missing");     // lib's own services entry is broken
        jarOf(uses, "b-uses.jar", "uses.UsesHelper");
        PluginRegistry plugins = PluginRegistry.load(dir);
        assertThat(plugins.skipped()).hasSize(2);
        assertThat(plugins.skipped().get(1)).isEqualTo("b-uses.jar (uses.UsesHelper() threw NoClassDefFoundError: lib/Helper)");
        assertThat(plugins.source("helped")).isEmpty();
    }

    /** Compiles one class (against the test class path and {@code extra}) into a directory of its own. */
    private Path compile(String name, String className, String source, Path... extra) throws IOException {
        Path src = dir.resolve(name + "-src").resolve(className.replace('.', '/') + ".java");
        Path classes = dir.resolve(name + "-classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, source);
        StringBuilder cp = new StringBuilder(System.getProperty("java.class.path"));
        for (Path p : extra) {
            cp.append(java.io.File.pathSeparator).append(p);
        }
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), "-cp", cp.toString(),
                src.toString());
        assertThat(rc).as("javac").isZero();
        return classes;
    }

    /** A jar of the classes under {@code classes}, whose services file names {@code provider} as a source plugin. */
    private void jarOf(Path classes, String name, String provider) throws IOException {
        try (OutputStream out = Files.newOutputStream(dir.resolve(name)); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                j.write(Files.readAllBytes(f));
                j.closeEntry();
            }
            j.putNextEntry(new JarEntry("META-INF/services/" + SourcePlugin.class.getName()));
            j.write((provider + "\n").getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
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
