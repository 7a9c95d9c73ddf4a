package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a Maven user gets, checked on the jars the build packaged (hence an end-to-end test,
 * after package): each module's jar names its module ({@code Automatic-Module-Name}); the
 * library modules come with sources and javadoc jars; the BOM lists every library module at
 * the build's version, and the README's snippet uses those coordinates.
 */
class LibraryJarsE2ETest {

    private static final Path ROOT = Path.of(System.getProperty("rdflux.home", ".."));
    /** The library modules: directory, artifactId, module name. */
    private static final List<List<String>> LIBRARY = List.of(
            List.of("rdma-flux", "rdma-flux", "io.rdmaflux"),
            List.of("codecs", "rdma-flux-codecs", "io.rdmaflux.codec"),
            List.of("connectors", "rdma-flux-connectors", "io.rdmaflux.connector"),
            List.of("pipeline", "rdma-flux-pipeline", "io.rdmaflux.pipeline"));
    private static final Map<String, String> OTHERS = Map.of(
            "samples/target/rdma-flux-samples", "io.rdmaflux.samples",
            "cli/target/rdma-flux-cli", "io.rdmaflux.cli");

    static List<List<String>> library() {
        return LIBRARY;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("library")
    void aLibraryModuleHasItsModuleNameSourcesAndJavadoc(List<String> module) throws IOException {
        String base = module.get(0) + "/target/" + module.get(1) + "-" + version();
        assertThat(moduleName(ROOT.resolve(base + ".jar"))).isEqualTo(module.get(2));
        try (JarFile sources = new JarFile(ROOT.resolve(base + "-sources.jar").toFile());
             JarFile javadoc = new JarFile(ROOT.resolve(base + "-javadoc.jar").toFile())) {
            assertThat(sources.stream().map(e -> e.getName()).filter(n -> n.endsWith(".java")))
                    .as("sources of %s", module.get(1)).isNotEmpty();
            assertThat(javadoc.getEntry("index.html")).as("javadoc of %s", module.get(1)).isNotNull();
            assertThat(javadoc.stream().map(e -> e.getName()))
                    .as("the internal packages are no part of the API").noneMatch(n -> n.contains("/internal/"));
        }
    }

    @Test
    void theOtherJarsNameTheirModulesToo() throws IOException {
        for (Map.Entry<String, String> e : OTHERS.entrySet()) {
            assertThat(moduleName(ROOT.resolve(e.getKey() + "-" + version() + ".jar"))).as(e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void theBomListsEveryLibraryModuleAtTheBuildsVersionAndTheReadmeUsesIt() throws IOException {
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
        assertThat(first(bom, "<artifactId>([^<]+)</artifactId>")).isEqualTo("rdma-flux-bom");
        assertThat(first(bom, "<version>([^<]+)</version>")).as("the BOM's own version").isEqualTo(version());
        for (List<String> module : LIBRARY) {
            assertThat(bom).contains("<artifactId>" + module.get(1) + "</artifactId>\n        <version>"
                    + version() + "</version>");
        }
        String readme = Files.readString(ROOT.resolve("README.md"));
        assertThat(readme).contains("<artifactId>rdma-flux-bom</artifactId>\n      <version>" + version()
                + "</version>").contains("<artifactId>rdma-flux</artifactId>");
    }

    private static String moduleName(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        }
    }

    /** The build's version: the parent POM's. */
    private static String version() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        return first(parent.substring(parent.indexOf("<artifactId>rdma-flux-parent</artifactId>")),
                "<version>([^<]+)</version>");
    }

    private static String first(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("%s in the text", regex).isTrue();
        return m.group(1);
    }
}
