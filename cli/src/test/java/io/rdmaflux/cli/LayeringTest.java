package io.rdmaflux.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's layering (docs/architecture.md), checked with ArchUnit on the compiled main
 * classes of every module: cli's test classpath holds all of them, samples included (a test
 * dependency of cli). A class belongs to the module it was compiled in, read from where its
 * class file lies ({@code codecs/target/classes}, or {@code rdma-flux-codecs-*.jar} when the
 * module comes from a repository), not from its package, so a class put in the wrong module is
 * seen as what it is. Bytecode does not show compile-time constants (javac copies them into the
 * user), so a dependency through a {@code static final} primitive or String alone is not seen.
 */
class LayeringTest {

    /** Module → the modules it may use (besides itself). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "rdma-flux", Set.of(),
            "codecs", Set.of("rdma-flux"),
            "connectors", Set.of("rdma-flux"),
            "pipeline", Set.of("rdma-flux", "codecs", "connectors"),
            "cli", Set.of("rdma-flux", "codecs", "connectors", "pipeline"),
            "samples", Set.of("rdma-flux", "codecs", "connectors", "pipeline"));

    /** {@code <module>/target/classes/} in a reactor build. */
    private static final Pattern BUILD_DIR = Pattern.compile("/(rdma-flux|codecs|connectors|pipeline|cli|samples)/target/classes/");
    /** {@code rdma-flux-<module>-<version>.jar} or {@code rdma-flux-<version>.jar} from a repository. */
    private static final Pattern JAR = Pattern.compile("/rdma-flux(?:-(codecs|connectors|pipeline|cli|samples))?-\\d[^/]*\\.jar!/");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.rdmaflux");
    }

    @Test
    void everyModuleIsSeenAndEveryClassHasOne() {
        Map<String, Integer> perModule = new TreeMap<>();
        Set<String> unplaced = new TreeSet<>();
        for (JavaClass c : classes) {
            String module = moduleOf(c);
            if (module == null) {
                unplaced.add(c.getName() + " at " + c.getSource().map(s -> s.getUri().toString()).orElse("?"));
            } else {
                perModule.merge(module, 1, Integer::sum);
            }
        }
        assertThat(unplaced).as("classes of no known module").isEmpty();
        assertThat(perModule.keySet()).as("modules whose classes were imported").isEqualTo(ALLOWED.keySet());
    }

    @Test
    void modulesPointDown() {
        var rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("rdma-flux").definedBy(inModule("rdma-flux"))
                .layer("codecs").definedBy(inModule("codecs"))
                .layer("connectors").definedBy(inModule("connectors"))
                .layer("pipeline").definedBy(inModule("pipeline"))
                .layer("cli").definedBy(inModule("cli"))
                .layer("samples").definedBy(inModule("samples"));
        for (Map.Entry<String, Set<String>> e : new TreeMap<>(ALLOWED).entrySet()) {
            rule = e.getValue().isEmpty()
                    ? rule.whereLayer(e.getKey()).mayNotAccessAnyLayer()
                    : rule.whereLayer(e.getKey()).mayOnlyAccessLayers(e.getValue().toArray(String[]::new));
        }
        rule.check(classes);
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.rdmaflux.(**)").should().beFreeOfCycles().check(classes);
    }

    /**
     * Inside rdma-flux, bottom to top: error, text, crypto, buffer (each on its own) ← protocol
     * ← internal.protocol; protocol, buffer ← transport ← transport.tcp, transport.rdma ←
     * channel ← metrics. The channel loads the RDMA transport by name, so nothing here refers to
     * it; nothing refers to metrics either, the one user of the optional Micrometer.
     */
    @Test
    void rdmaFluxPointsDownToItsWireTypes() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("error").definedBy("io.rdmaflux.error..")
                .layer("text").definedBy("io.rdmaflux.text..")
                .layer("crypto").definedBy("io.rdmaflux.crypto..")
                .layer("buffer").definedBy("io.rdmaflux.buffer..")
                .layer("protocol").definedBy("io.rdmaflux.protocol..")
                .layer("internal.protocol").definedBy("io.rdmaflux.internal.protocol..")
                .layer("transport").definedBy("io.rdmaflux.transport")
                .layer("transport.tcp").definedBy("io.rdmaflux.transport.tcp..")
                .layer("transport.rdma").definedBy("io.rdmaflux.transport.rdma..")
                .layer("channel").definedBy("io.rdmaflux.channel..")
                .layer("metrics").definedBy("io.rdmaflux.metrics..")
                .whereLayer("error").mayNotAccessAnyLayer()
                .whereLayer("text").mayNotAccessAnyLayer()
                .whereLayer("crypto").mayNotAccessAnyLayer()
                .whereLayer("buffer").mayNotAccessAnyLayer()
                .whereLayer("protocol").mayOnlyAccessLayers("error")
                .whereLayer("internal.protocol").mayOnlyAccessLayers("protocol", "error", "text", "crypto")
                .whereLayer("transport").mayOnlyAccessLayers("protocol", "buffer", "error")
                .whereLayer("transport.tcp").mayOnlyAccessLayers("transport", "protocol", "buffer", "error")
                .whereLayer("transport.rdma").mayOnlyAccessLayers("transport", "protocol", "buffer", "error")
                .whereLayer("transport.rdma").mayNotBeAccessedByAnyLayer()
                .whereLayer("channel").mayOnlyBeAccessedByLayers("metrics")
                .whereLayer("metrics").mayOnlyAccessLayers("channel", "error")
                .whereLayer("metrics").mayNotBeAccessedByAnyLayer()
                .check(classes);
    }

    /** The wire internals are rdma-flux's own: no other module's main code uses them. */
    @Test
    void internalPackagesStayInRdmaFlux() {
        noClasses().that(DescribedPredicate.describe("are in another module than rdma-flux",
                        (JavaClass c) -> !"rdma-flux".equals(moduleOf(c))))
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.internal..")
                .check(classes);
    }

    /** Inside pipeline: builtin → plugin → the runner package and config, which use neither each other. */
    @Test
    void pipelinePointsDown() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("runner").definedBy("io.rdmaflux.pipeline")
                .layer("config").definedBy("io.rdmaflux.pipeline.config..")
                .layer("plugin").definedBy("io.rdmaflux.pipeline.plugin..")
                .layer("builtin").definedBy("io.rdmaflux.pipeline.builtin..")
                .whereLayer("runner").mayNotAccessAnyLayer()
                .whereLayer("config").mayNotAccessAnyLayer()
                .whereLayer("plugin").mayOnlyAccessLayers("runner", "config")
                .whereLayer("builtin").mayOnlyAccessLayers("runner", "config", "plugin")
                .check(classes);
    }

    /** Inside connectors and cli: the subpackage uses its parent, never the other way. */
    @Test
    void subpackagesOfConnectorsAndCliPointUp() {
        noClasses().that().resideInAPackage("io.rdmaflux.connector")
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.connector.tree..")
                .check(classes);
        noClasses().that().resideInAPackage("io.rdmaflux.cli.remote..")
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.cli")
                .check(classes);
        // The warm agent's daemon gets each session's agent from cli (WarmSessions), never reaches into it.
        noClasses().that().resideInAPackage("io.rdmaflux.cli.warm..")
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.cli")
                .check(classes);
        noClasses().that().resideInAPackage("io.rdmaflux.cli.remote..")
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.cli.warm..")
                .check(classes);
        // The standby JVM gets its warm-up and its call from cli (StandbyCalls), never reaches into it.
        noClasses().that().resideInAPackage("io.rdmaflux.cli.standby..")
                .should().dependOnClassesThat().resideInAPackage("io.rdmaflux.cli")
                .check(classes);
    }

    private static DescribedPredicate<JavaClass> inModule(String module) {
        return DescribedPredicate.describe("classes of module " + module, c -> module.equals(moduleOf(c)));
    }

    /** The module a class was compiled in, from where its class file lies; null if none of ours. */
    static String moduleOf(JavaClass c) {
        return c.getSource().map(s -> moduleOf(s.getUri())).orElse(null);
    }

    private static String moduleOf(URI uri) {
        String where = uri.toString();
        Matcher dir = BUILD_DIR.matcher(where);
        if (dir.find()) {
            return dir.group(1);
        }
        Matcher jar = JAR.matcher(where);
        if (jar.find()) {
            return jar.group(1) == null ? "rdma-flux" : jar.group(1);
        }
        return null;
    }
}
