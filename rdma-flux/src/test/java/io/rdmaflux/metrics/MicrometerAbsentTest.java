package io.rdmaflux.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency: the library, observers included, works in a JVM whose
 * class path lacks it. Runs {@link WithoutMicrometer} in such a JVM: this module's classes and
 * its test class path (target/test-classpath.txt) less micrometer's jars.
 */
class MicrometerAbsentTest {

    @Test
    void anObservedStreamWorksWithoutMicrometerOnTheClassPath() throws Exception {
        List<String> dependencies = Arrays.asList(Files.readString(Path.of("target/test-classpath.txt")).trim()
                .split(java.io.File.pathSeparator));
        List<String> without = dependencies.stream().filter(p -> !p.contains("micrometer")).toList();
        assertThat(without).as("micrometer's jars, left out").hasSizeLessThan(dependencies.size());
        List<String> classPath = new ArrayList<>(List.of("target/classes", "target/test-classes"));
        classPath.addAll(without);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(java.io.File.pathSeparator, classPath), WithoutMicrometer.class.getName())
                .redirectErrorStream(true).start();
        String out;
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the JVM ended within 60 s").isTrue();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
        assertThat(out).contains("ok 1234");
        assertThat(p.exitValue()).as(out).isZero();
    }
}
