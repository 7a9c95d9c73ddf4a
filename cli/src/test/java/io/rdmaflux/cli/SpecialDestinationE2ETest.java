package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Destinations that are not regular files, through the real launchers, on this host
 * ({@link SpecialDestinationRemoteE2ETest} has the cases over ssh). The rule (docs/tree-format.md, "Destinations that are not regular
 * files"): a device or FIFO named as the destination is written through, as cp and scp write
 * it, and stays what it was; inside a tree copy, a special file where the source has a file is
 * replaced by it, as rsync does. Devices are made with mknod (a character device with
 * /dev/null's numbers, 1,3) and FIFOs with mkfifo, in the test's temporary directory, never
 * the system's own. A block device would need a loop device, which this host lacks: the
 * character device and the FIFO stand for it.
 */
class SpecialDestinationE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFREG = 0100000;

    @TempDir
    Path dir;

    private Path src;

    @BeforeEach
    void setUp() {
        src = Files2.random(dir.resolve("big_file"), 3 * 1024 * 1024 + 17, 21);
    }

    @AfterEach
    void nothingLeftRunning() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<ProcessHandle> left = marked();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = marked();
        }
        left.forEach(ProcessHandle::destroyForcibly);
        assertThat(left).as("processes of this test still running").isEmpty();
    }

    @Test
    void rdcpToALocalDeviceWritesThroughIt() throws Exception {
        Path dev = charDevice("null");
        Tool t = rdcp(src.toString(), dev.toString());
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void rdcpToALocalFifoFeedsItsReader() throws Exception {
        Path fifo = fifo("fifo");
        Process reader = reader(fifo, dir.resolve("read"));
        Tool t = rdcp(src.toString(), fifo.toString());
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(reader.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Files2.sha256(dir.resolve("read"))).isEqualTo(Files2.sha256(src));
        assertThat(type(fifo)).isEqualTo(S_IFIFO);
    }

    /** A sync lists the destination first: a device there is written through, not refused or replaced. */
    @Test
    void syncToADeviceWritesThroughIt() throws Exception {
        Path dev = charDevice("null");
        Tool t = rdcp("--sync", src.toString(), dev.toString());
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(leftovers()).isEmpty();
    }

    /** Inside a synced tree the destination is the user's copy: a special file where the source has a file is replaced. */
    @Test
    void syncAndDeleteInsideATreeReplaceSpecialFilesByTheSourcesFiles() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree/d"));
        for (String name : List.of("dev", "fifo", "socket")) {
            Files.writeString(tree.resolve(name), "file " + name);
        }
        Path copy = Files.createDirectories(dir.resolve("copy/d"));
        charDevice("copy/d/dev");
        fifo("copy/d/fifo");
        Path extra = charDevice("copy/d/extra");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(copy.resolve("socket")));
            Tool t = rdcp("-r", "--sync", "--delete", dir.resolve("tree") + "/", dir.resolve("copy").toString());
            assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        }
        for (String name : List.of("dev", "fifo", "socket")) {
            assertThat(type(copy.resolve(name))).as(name).isEqualTo(S_IFREG);
            assertThat(Files.readString(copy.resolve(name))).isEqualTo("file " + name);
        }
        assertThat(Files.exists(extra, LinkOption.NOFOLLOW_LINKS)).as("removed by --delete").isFalse();
    }

    @Test
    void rdrecvWritesThroughADeviceAndAFifo() throws Exception {
        Path dev = charDevice("null");
        receive(dev);
        assertThat(type(dev)).isEqualTo(S_IFCHR);

        Path fifo = fifo("fifo");
        Process reader = reader(fifo, dir.resolve("read"));
        receive(fifo);
        assertThat(reader.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Files2.sha256(dir.resolve("read"))).isEqualTo(Files2.sha256(src));
        assertThat(type(fifo)).isEqualTo(S_IFIFO);
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void rdpipeRedirectionsWriteThroughAFifo() throws Exception {
        Path fifo = fifo("fifo");
        for (String op : List.of(">", ">>")) {
            Path read = dir.resolve("read" + op.length());
            Process reader = reader(fifo, read);
            Tool t = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.from(src.toFile()), ProcessBuilder.Redirect.PIPE,
                    Map.of("RDFLUX_JAVA_OPTS", marker()), "cat", op + " " + fifo);
            assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
            assertThat(reader.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(Files2.sha256(read)).as(op).isEqualTo(Files2.sha256(src));
            assertThat(type(fifo)).as(op).isEqualTo(S_IFIFO);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------

    private void receive(Path out) {
        Tool r = Tool.start(dir, "rdrecv", "--transport", "tcp", "0", "key1", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "127.0.0.1", Integer.toString(port), "key1",
                src.toString());
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
    }

    private Tool rdcp(String... args) {
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", marker()), args);
    }

    /** A character device with /dev/null's numbers, made in the test's directory (needs root). */
    private Path charDevice(String name) throws Exception {
        Path p = dir.resolve(name);
        assumeTrue(run("mknod", p.toString(), "c", "1", "3") == 0, "mknod needs root");
        return p;
    }

    private Path fifo(String name) throws Exception {
        Path p = dir.resolve(name);
        assumeTrue(run("mkfifo", p.toString()) == 0, "mkfifo is not available");
        return p;
    }

    /** Reads the FIFO to its end into {@code into}, concurrently (and gives up after 60 s). */
    private static Process reader(Path fifo, Path into) throws IOException {
        return new ProcessBuilder("timeout", "60", "cat", fifo.toString())
                .redirectOutput(into.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static int type(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT;
    }

    /** Temporary or partial files left in the test's directory. */
    private List<Path> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    private String marker() {
        return "-Drdflux.test.marker=" + dir;
    }

    private List<ProcessHandle> marked() {
        String marker = dir.toString();
        return ProcessHandle.allProcesses().filter(p -> p.isAlive()
                && p.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
