package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key files as real processes read them: a file far too long to be a key ({@code /dev/zero},
 * read as a source only, or a 300 MB file) is one line and a usage or configuration error,
 * never an OutOfMemoryError; a FIFO ({@code --key-file <(pass ...)}, made here with mkfifo in a
 * temporary directory) is not opened by {@code rdflux run --check} and gives its key to a run.
 */
class KeyFileE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;
    private static final Pattern LISTENING = Pattern.compile("rdflux: listening on 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    private Path emptyPlugins;

    @BeforeEach
    void noUserPlugins() throws IOException {
        emptyPlugins = Files.createDirectory(dir.resolve("no-plugins"));
    }

    private Tool rdflux(String... args) {
        return Tool.start(dir, "rdflux", PIPE, PIPE, Map.of("RDFLUX_PLUGINS", emptyPlugins.toString()), args);
    }

    /** One line naming the file and the bound (a pipeline's as its errors are), nothing of a JVM's trace. */
    private static void oneLineAboutTheBound(Tool t, String tool, Path file) {
        assertThat(t.err()).doesNotContain("OutOfMemoryError").doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(t.err().lines().filter(l -> !l.endsWith("--help'")).toList()).containsExactly(
                (tool.equals("rdflux") ? "p.yaml:1: source.key-file: " : tool + ": ") + "key file " + file
                + " holds more than 4096 bytes, which is no key (is it the right file?)");
    }

    @Test
    void devZeroAsKeyFileIsABoundedReadAndOneLine() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 1000, 1);
        Path zero = Path.of("/dev/zero");
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--key-file", zero.toString(), "127.0.0.1", "1",
                in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.USAGE);
        oneLineAboutTheBound(s, "rdsend", zero);

        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp", "--key-file", zero.toString(), "0", out.toString());
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.USAGE);
        oneLineAboutTheBound(r, "rdrecv", zero);
        assertThat(out).doesNotExist();

        Files.writeString(dir.resolve("p.yaml"), "source: {type: receive, port: 0, bind: 127.0.0.1, key-file: /dev/zero, "
                + "transport: tcp}\nsink: {type: file, path: out.bin}\n");
        Tool run = rdflux("run", "p.yaml");
        assertThat(run.exitCode(LIMIT)).as("rdflux run: %s", run.err()).isEqualTo(ExitCode.CONFIG);
        oneLineAboutTheBound(run, "rdflux", zero);
        assertThat(out).doesNotExist();
    }

    @Test
    void aLargeFileAsKeyFileIsRefusedWithoutReadingIt() throws IOException {
        Path big = dir.resolve("disk.img");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(300L << 20);   // sparse: 300 MB that take no room
        }
        Path in = Files2.random(dir.resolve("in.bin"), 1000, 2);
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--key-file", big.toString(), "127.0.0.1", "1",
                in.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.USAGE);
        oneLineAboutTheBound(s, "rdsend", big);
    }

    private Path fifo(String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process mk = new ProcessBuilder("mkfifo", "-m", "600", p.toString()).inheritIO().start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).as("mkfifo").isZero();
        return p;
    }

    @Test
    void checkDoesNotOpenAFifoKeyFile() throws Exception {
        Path fifo = fifo("key.fifo");
        Files.writeString(dir.resolve("p.yaml"), "source: stdin\nsink: {type: send, host: 127.0.0.1, port: 1, key-file: "
                + fifo + "}\n");
        // Nobody writes to the FIFO: opening it would wait for ever.
        Tool t = rdflux("run", "--check", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as("rdflux run --check: %s", t.err()).isZero();
        assertThat(t.err()).isEqualTo("rdflux: p.yaml: valid (stdin -> send)\n");
    }

    @Test
    void aFifoKeyFileGivesItsKeyToARun() throws Exception {
        Path fifo = fifo("key.fifo");
        Path k = Files.writeString(dir.resolve("key"), "fifo secret\n");
        Files.setPosixFilePermissions(k, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        // As `--key-file <(pass show rdkey)`: a writer that writes the key once, then is gone.
        Process writer = new ProcessBuilder("sh", "-c", "printf 'fifo secret\\n' > \"$1\"", "sh", fifo.toString())
                .inheritIO().start();
        try {
            Files.writeString(dir.resolve("p.yaml"), "source: {type: receive, port: 0, bind: 127.0.0.1, key-file: "
                    + fifo + ", transport: tcp}\nsink: {type: file, path: out.bin}\n");
            Tool r = rdflux("run", "p.yaml");
            int port = port(r);
            Path in = Files2.random(dir.resolve("in.bin"), 300_000, 3);
            Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--key-file", k.toString(), "127.0.0.1",
                    Integer.toString(port), in.toString());
            assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
            assertThat(r.exitCode(LIMIT)).as("rdflux run: %s", r.err()).isZero();
            assertThat(Files2.sha256(dir.resolve("out.bin"))).isEqualTo(Files2.sha256(in));
        } finally {
            writer.destroyForcibly();
            writer.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The port a receiving pipeline printed. */
    private static int port(Tool t) {
        try {
            await("a 'listening on' line").atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> LISTENING.matcher(t.err()).find() || !t.process.isAlive());
        } catch (ConditionTimeoutException e) {
            t.kill();
            throw new AssertionError("no 'listening on' line: " + t.err(), e);
        }
        Matcher m = LISTENING.matcher(t.err());
        if (!m.find()) {
            throw new AssertionError("the receiver exited: " + t.err());
        }
        return Integer.parseInt(m.group(1));
    }
}
