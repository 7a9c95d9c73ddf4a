package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receiver serves a thousand small streams in a row within a 64 MiB direct-memory limit:
 * each ended stream gives its receive ring back at once. Before, an ended connection kept its
 * ring for the five seconds its socket lingers, and some hundred streams failed with "Cannot
 * reserve ... bytes of direct buffer memory". Runs {@link ManyStreams} in a JVM of its own, as
 * the limit is the JVM's.
 */
class ManyStreamsTest {

    private static final int STREAMS = 1000;

    @Test
    void aThousandSmallStreamsInARowFitIn64MiBOfDirectMemory(@TempDir Path dir) throws IOException, InterruptedException {
        Path out = dir.resolve("out.txt");
        // Surefire may hand the tests a manifest-only jar as their class path; this names its entries.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxDirectMemorySize=64m", "-Xmx256m", "-cp", classPath, ManyStreams.class.getName(),
                String.valueOf(STREAMS))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean ended = p.waitFor(3, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(out);
        String summary = output.lines().filter(l -> l.contains("streams succeeded") || l.contains("direct memory limit"))
                .reduce("", (a, b) -> a + b + "\n");
        assertThat(ended).as("the run ended within 3 minutes; it printed:%n%s", summary).isTrue();
        assertThat(output).as("the child's limit").contains("direct memory limit 64 MiB");
        assertThat(p.exitValue()).as("exit status; it printed:%n%s", summary).isZero();
        assertThat(output).contains(STREAMS + " of " + STREAMS + " streams succeeded, " + STREAMS * 65536L + " bytes");
    }
}
