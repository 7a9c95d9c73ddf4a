package io.rdmaflux.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A file the user names that is a standard stream ({@code /dev/stdout}, {@code /dev/fd/1}, a link
 * to one ...) means, in a served call, the caller's stream: the holder's path, never this
 * process's own descriptor (a standby's /dev/null). Descriptors above 2 are not passed: one line.
 */
class StandardStreamsResolveTest {

    private static final long PID = ProcessHandle.current().pid();
    private static final Path IN = Path.of("/proc/4242/fd/0");
    private static final Path OUT = Path.of("/proc/4242/fd/1");
    private static final Path ERR = Path.of("/proc/4242/fd/2");

    @TempDir
    Path dir;

    private Process client;

    @AfterEach
    void ownStreamsAgain() throws InterruptedException {
        StandardStreams.reset();
        if (client != null) {
            client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void served() {
        StandardStreams.use(java.io.FileDescriptor.in, java.io.FileDescriptor.out, java.io.FileDescriptor.err,
                IN, OUT, ERR);
    }

    @Test
    void aColdRunOpensWhatTheUserNamed() throws Exception {
        assertThat(StandardStreams.resolve(Path.of("/dev/stdout"))).isEqualTo(Path.of("/dev/stdout"));
        assertThat(StandardStreams.resolve(Path.of("/dev/fd/3"))).isEqualTo(Path.of("/dev/fd/3"));
    }

    @Test
    void eachNameOfAStandardStreamIsTheCallersStream() throws Exception {
        served();
        assertThat(StandardStreams.resolve(Path.of("/dev/stdin"))).isEqualTo(IN);
        assertThat(StandardStreams.resolve(Path.of("/dev/stdout"))).isEqualTo(OUT);
        assertThat(StandardStreams.resolve(Path.of("/dev/stderr"))).isEqualTo(ERR);
        assertThat(StandardStreams.resolve(Path.of("/dev/fd/0"))).isEqualTo(IN);
        assertThat(StandardStreams.resolve(Path.of("/dev/fd/1"))).isEqualTo(OUT);
        assertThat(StandardStreams.resolve(Path.of("/proc/self/fd/2"))).isEqualTo(ERR);
        assertThat(StandardStreams.resolve(Path.of("/proc/thread-self/fd/1"))).isEqualTo(OUT);
        assertThat(StandardStreams.resolve(Path.of("/proc/" + PID + "/fd/1"))).isEqualTo(OUT);
        assertThat(StandardStreams.resolve(Path.of("/dev/./fd/../stdout"))).isEqualTo(OUT);
    }

    @Test
    void aChainOfLinksThatReachesOneIsTheCallersStream() throws Exception {
        served();
        Path last = Files.createSymbolicLink(dir.resolve("c"), Path.of("/dev/stdout"));
        Files.createDirectories(dir.resolve("sub"));
        Files.createSymbolicLink(dir.resolve("sub/b"), Path.of("../c"));
        Path first = Files.createSymbolicLink(dir.resolve("a"), Path.of("sub/b"));
        assertThat(StandardStreams.resolve(first)).isEqualTo(OUT);
        assertThat(StandardStreams.resolve(last)).isEqualTo(OUT);
        // A directory link to the descriptors' directory, then a descriptor's name in it.
        Path fds = Files.createSymbolicLink(dir.resolve("fds"), Path.of("/proc/self/fd"));
        assertThat(StandardStreams.resolve(fds.resolve("0"))).isEqualTo(IN);
    }

    @Test
    void otherPathsAreLeftAsTheUserNamedThem() throws Exception {
        served();
        Path file = Files.writeString(dir.resolve("file"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        Path loop = Files.createSymbolicLink(dir.resolve("loop"), Path.of("loop"));
        assertThat(StandardStreams.resolve(file)).isEqualTo(file);
        assertThat(StandardStreams.resolve(link)).isEqualTo(link);
        assertThat(StandardStreams.resolve(dangling)).isEqualTo(dangling);
        assertThat(StandardStreams.resolve(loop)).isEqualTo(loop);
        assertThat(StandardStreams.resolve(Path.of("/dev/null"))).isEqualTo(Path.of("/dev/null"));
        assertThat(StandardStreams.resolve(Path.of("/proc/1/fd/1"))).isEqualTo(Path.of("/proc/1/fd/1"));
    }

    @Test
    void aDescriptorAboveTwoIsTheCallersOwnAndOnlyANumberNoDescriptorCanHaveFails() throws Exception {
        served();
        assertThat(StandardStreams.resolve(Path.of("/dev/fd/3"))).isEqualTo(Path.of("/proc/4242/fd/3"));
        Path link = Files.createSymbolicLink(dir.resolve("sixty-three"), Path.of("/proc/self/fd/63"));
        assertThat(StandardStreams.resolve(link)).isEqualTo(Path.of("/proc/4242/fd/63"));
        Path huge = Path.of("/dev/fd/99999999999");
        assertThatThrownBy(() -> StandardStreams.resolve(huge)).isInstanceOf(StandardStreams.NotPassed.class)
                .hasMessageContaining("descriptor N");
        assertThatThrownBy(() -> FileSource.of(huge)).isInstanceOf(ConnectorException.class)
                .hasMessageStartingWith("cannot read " + huge + ": descriptor N of the calling process")
                .hasMessageNotContaining("\n");
    }

    /**
     * A shell's {@code <(...)}: the caller's descriptor 3, a file it opened ({@code exec 3<}), is
     * what a served call reads as {@code /dev/fd/3}, not this JVM's descriptor 3 (before: the call
     * failed, and {@code --key-file <(pass show key)} with it).
     */
    @Test
    void aServedCallReadsTheCallersDescriptorThree() throws Exception {
        Path file = Files.writeString(dir.resolve("three.txt"), "the caller's fd 3");
        client = new ProcessBuilder("sh", "-c", "exec 3<\"$0\"; exec sleep 60", file.toString()).start();
        Path fd = Path.of("/proc/" + client.pid() + "/fd");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.isSymbolicLink(fd.resolve("3")) && Files.readSymbolicLink(fd.resolve("3")).equals(file));
        StandardStreams.use(java.io.FileDescriptor.in, java.io.FileDescriptor.out, java.io.FileDescriptor.err,
                fd.resolve("0"), fd.resolve("1"), fd.resolve("2"));
        Path opened = StandardStreams.resolve(Path.of("/dev/fd/3"));
        assertThat(opened).isEqualTo(fd.resolve("3"));
        assertThat(Files.readString(opened)).isEqualTo("the caller's fd 3");
    }

    /**
     * A real caller: a process whose stdin and stdout are pipes to this test. Served as a standby
     * serves it (the holder on its /proc/PID/fd), {@code /dev/stdout} and a link to
     * {@code /dev/stdin} reach those pipes; before the fix they were this JVM's own descriptors.
     */
    @Test
    void aServedCallsDevStdoutAndDevStdinAreTheCallersPipes() throws Exception {
        client = new ProcessBuilder("sleep", "60").start();
        Path fd = Path.of("/proc/" + client.pid() + "/fd");
        try (FileInputStream in = new FileInputStream(fd.resolve("0").toFile());
             FileOutputStream out = new FileOutputStream(fd.resolve("1").toFile());
             FileOutputStream err = new FileOutputStream(fd.resolve("2").toFile())) {
            StandardStreams.use(in.getFD(), out.getFD(), err.getFD(), fd.resolve("0"), fd.resolve("1"), fd.resolve("2"));

            // Output first: before the fix the input half would read this JVM's own stdin.
            byte[] data = "to the caller's stdout".getBytes(StandardCharsets.US_ASCII);
            FileSink.of(Path.of("/dev/stdout")).write(Flux.just(Chunk.wrap(ByteBuffer.wrap(data))))
                    .block(Duration.ofSeconds(30));
            InputStream fromClient = client.getInputStream();
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try {
                    return fromClient.readNBytes(data.length);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertThat(new String(got.get(30, TimeUnit.SECONDS), StandardCharsets.US_ASCII))
                    .isEqualTo("to the caller's stdout");

            OutputStream toClient = client.getOutputStream();
            toClient.write("from the caller".getBytes(StandardCharsets.US_ASCII));
            toClient.close();
            Path stdinLink = Files.createSymbolicLink(dir.resolve("input"), Path.of("/dev/stdin"));
            byte[] read = FileSource.of(stdinLink).open()
                    .map(c -> {
                        ByteBuffer b = c.buffer();
                        byte[] a = new byte[b.remaining()];
                        b.get(a);
                        c.release();
                        return a;
                    })
                    .reduce(new byte[0], StandardStreamsResolveTest::concat)
                    .block(Duration.ofSeconds(30));
            assertThat(new String(read, StandardCharsets.US_ASCII)).isEqualTo("from the caller");
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
