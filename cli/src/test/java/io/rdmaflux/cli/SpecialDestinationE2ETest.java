package io.rdmaflux.cli;

import static io.rdmaflux.testing.SpecialFiles.S_IFCHR;
import static io.rdmaflux.testing.SpecialFiles.S_IFIFO;
import static io.rdmaflux.testing.SpecialFiles.S_IFREG;
import static io.rdmaflux.testing.SpecialFiles.charDevice;
import static io.rdmaflux.testing.SpecialFiles.fifo;
import static io.rdmaflux.testing.SpecialFiles.type;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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

    @TempDir
    Path dir;

    private Path src;

    @BeforeEach
    void setUp() {
        src = Files2.random(dir.resolve("big_file"), 3 * 1024 * 1024 + 17, 21);
    }

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir);

    @Test
    void rdcpToALocalDeviceWritesThroughIt() throws Exception {
        Path dev = charDevice(dir.resolve("null"));
        Tool t = rdcp(src.toString(), dev.toString());
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void rdcpToALocalFifoFeedsItsReader() throws Exception {
        Path fifo = fifo(dir.resolve("fifo"));
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
        Path dev = charDevice(dir.resolve("null"));
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
        charDevice(dir.resolve("copy/d/dev"));
        fifo(dir.resolve("copy/d/fifo"));
        Path extra = charDevice(dir.resolve("copy/d/extra"));
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
        Path dev = charDevice(dir.resolve("null"));
        receive(dev);
        assertThat(type(dev)).isEqualTo(S_IFCHR);

        Path fifo = fifo(dir.resolve("fifo"));
        Process reader = reader(fifo, dir.resolve("read"));
        receive(fifo);
        assertThat(reader.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Files2.sha256(dir.resolve("read"))).isEqualTo(Files2.sha256(src));
        assertThat(type(fifo)).isEqualTo(S_IFIFO);
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void rdpipeRedirectionsWriteThroughAFifo() throws Exception {
        Path fifo = fifo(dir.resolve("fifo"));
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

    /** Reads the FIFO to its end into {@code into}, concurrently (and gives up after 60 s). */
    private static Process reader(Path fifo, Path into) throws IOException {
        return new ProcessBuilder("timeout", "60", "cat", fifo.toString())
                .redirectOutput(into.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
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
}
