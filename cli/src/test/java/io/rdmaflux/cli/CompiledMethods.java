package io.rdmaflux.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What a JVM of a test's tools has compiled, as that JVM itself lists it ({@code jcmd PID
 * Compiler.codelist}): how the warm-up tests see that a standby or a warm daemon has run the
 * tree copy's per-file path often enough for C1.
 */
final class CompiledMethods {

    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");

    private CompiledMethods() {
    }

    /**
     * Waits, up to {@code limit}, until JVM {@code pid} lists a compiled method for each of
     * {@code prefixes} (e.g. {@code " io.rdmaflux.connector.tree.TreeParser.complete("}); skips
     * the test where this JDK has no jcmd.
     */
    static void await(long pid, Duration limit, String... prefixes) {
        assumeTrue(Files.isExecutable(JCMD), "no jcmd in this JDK: cannot read a JVM's compiled methods");
        org.awaitility.Awaitility.await("compiled: " + Arrays.toString(prefixes)).atMost(limit)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    String list = of(pid);
                    return Arrays.stream(prefixes).allMatch(list::contains);
                });
    }

    /**
     * Waits, up to {@code limit}, until JVM {@code pid} has loaded class {@code name} ({@code jcmd
     * PID VM.class_hierarchy}); skips the test where this JDK has no jcmd.
     */
    static void awaitLoaded(long pid, Duration limit, String name) {
        assumeTrue(Files.isExecutable(JCMD), "no jcmd in this JDK: cannot read a JVM's loaded classes");
        org.awaitility.Awaitility.await("loaded: " + name).atMost(limit)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> jcmd(pid, "VM.class_hierarchy").contains("--" + name + "/"));
    }

    /** The list, or "" where jcmd did not answer within a minute (then killed). */
    static String of(long pid) throws IOException, InterruptedException {
        return jcmd(pid, "Compiler.codelist");
    }

    /** What {@code jcmd PID COMMAND} wrote, or "" where it did not answer within a minute (then killed). */
    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("rdflux-codelist-", ".txt");
        try {
            Process p = new ProcessBuilder(JCMD.toString(), Long.toString(pid), command)
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return "";
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
