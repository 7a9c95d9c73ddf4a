package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.randomFile;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.testing.SpecialFiles;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standard-streams holder: the tools' stdin source, stdout sink and pipe check follow the
 * streams it names (a standby JVM's client's), not descriptors 0 and 1. Run in a child process
 * whose own stdin and stdout are decoy files, which must stay untouched.
 */
class StandardStreamsTest {

    @TempDir
    Path dir;

    @AfterEach
    void ownStreamsAgain() {
        StandardStreams.reset();
    }

    @Test
    void aColdProcessUsesDescriptorsZeroOneAndTwo() {
        assertThat(StandardStreams.own()).isTrue();
        assertThat(StandardStreams.in()).isSameAs(java.io.FileDescriptor.in);
        assertThat(StandardStreams.out()).isSameAs(java.io.FileDescriptor.out);
        assertThat(StandardStreams.path(0)).isEqualTo(Path.of("/proc/self/fd/0"));
        assertThat(StandardStreams.path(1)).isEqualTo(Path.of("/proc/self/fd/1"));
    }

    @Test
    void sourceAndSinkUseTheStreamsTheHolderNames() throws Exception {
        Path in = randomFile(dir, "in.bin", 3 * 1024 * 1024 + 11, 41);
        Path out = dir.resolve("out.bin");
        Files.writeString(out, "kept:");
        Path decoyIn = Files.writeString(dir.resolve("decoy-in"), "decoy");
        Path decoyOut = Files.createFile(dir.resolve("decoy-out"));
        Process p = child(in, out, 5).redirectInput(decoyIn.toFile()).redirectOutput(decoyOut.toFile()).start();
        String err = finish(p);
        assertThat(err).contains("stdin is a pipe: false");
        byte[] expected = "kept:".getBytes(StandardCharsets.US_ASCII);
        byte[] got = Files.readAllBytes(out);
        assertThat(got).hasSize(expected.length + (int) Files.size(in));
        assertThat(java.util.Arrays.copyOf(got, 5)).isEqualTo(expected);
        assertThat(java.util.Arrays.copyOfRange(got, 5, got.length)).isEqualTo(Files.readAllBytes(in));
        assertThat(Files.size(decoyOut)).isZero();
    }

    @Test
    void theStdinPipeCheckLooksAtTheHoldersStdin() throws Exception {
        Path fifo = SpecialFiles.fifo(dir.resolve("fifo"));
        Path out = dir.resolve("out.bin");
        Path decoyIn = Files.writeString(dir.resolve("decoy-in"), "decoy");
        Process p = child(fifo, out, 0).redirectInput(decoyIn.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        // The child opens the FIFO for reading; this end writes a few bytes and closes it.
        try (FileOutputStream w = new FileOutputStream(fifo.toFile())) {
            w.write("through the fifo".getBytes(StandardCharsets.US_ASCII));
        }
        String err = finish(p);
        assertThat(err).contains("stdin is a pipe: true");
        assertThat(Files.readString(out)).isEqualTo("through the fifo");
    }

    private static String finish(Process p) throws Exception {
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ended).as("the child ended").isTrue();
        assertThat(p.exitValue()).as(err).isZero();
        return err;
    }

    private static ProcessBuilder child(Path in, Path out, long pos) {
        return new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx128m", HolderCopy.class.getName(),
                in.toString(), out.toString(), Long.toString(pos)));
    }
}
