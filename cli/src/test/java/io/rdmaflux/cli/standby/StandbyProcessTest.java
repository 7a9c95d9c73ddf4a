package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standby in this JVM, served over its real unix socket by a client written here, the call a
 * stand-in that reads from the client's stdin and writes to its stdout. The client's
 * {@code /proc/PID/fd} is a directory of real files, so that offsets can be checked.
 */
class StandbyProcessTest {

    static final long PID = 4242;

    @TempDir
    Path dir;

    private StandbyPlace place;
    private Path proc;
    private final AtomicReference<StandbyContext> served = new AtomicReference<>();

    @BeforeEach
    void place() throws IOException {
        // The exit frame starts a successor unless standbys are off, as the build's test environment has them.
        assumeTrue("no".equals(System.getenv("RDFLUX_STANDBY")), "RDFLUX_STANDBY=no (the parent pom sets it)");
        place = StandbyPlace.of(Map.of("HOME", dir.resolve("home").toString()), StandbyPlaceTest.KEY);
        proc = dir.resolve("proc");
        Path fd = Files.createDirectories(proc.resolve(Long.toString(PID)).resolve("fd"));
        Files.writeString(fd.resolve("0"), "abcdefgh");
        Files.writeString(fd.resolve("1"), "kept:");
        Files.writeString(fd.resolve("2"), "was");
    }

    /** The call: 3 bytes from stdin to stdout, then "data", then the exit status 7. */
    private final class Copy implements StandbyProcess.Call {
        @Override
        public void warmUp() {
        }

        @Override
        public void run(StandbyContext context, ClientStreams streams, IntConsumer beforeExit) {
            served.set(context);
            try {
                // Streams on the descriptors, not closed: closing one would close the descriptor.
                byte[] three = new FileInputStream(streams.fd(0)).readNBytes(3);
                FileOutputStream out = new FileOutputStream(streams.fd(1));
                out.write(three);
                out.write("data".getBytes(StandardCharsets.US_ASCII));
                new FileOutputStream(streams.fd(2)).write("said".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            beforeExit.accept(7);
        }
    }

    private CompletableFuture<Integer> standby(Duration idle) {
        return standby(idle, proc);
    }

    private CompletableFuture<Integer> standby(Duration idle, Path procDir) {
        StandbyProcess p = new StandbyProcess(place, idle, new Copy(), s -> { }, procDir);
        return CompletableFuture.supplyAsync(p::run);
    }

    private SocketChannel connect() throws IOException {
        Awaitility.await("the standby listens").atMost(Duration.ofSeconds(20)).until(() -> Files.exists(place.socket(0)));
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(place.socket(0)));
        return c;
    }

    private static void send(SocketChannel c, byte[] body) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip();
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private static ByteBuffer read(SocketChannel c, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining() && c.read(b) >= 0) {
            // until full or EOF
        }
        return b.flip();
    }

    private static String greeting(SocketChannel c) throws IOException {
        StringBuilder s = new StringBuilder();
        ByteBuffer one = ByteBuffer.allocate(1);
        while (c.read(one.clear()) == 1 && one.get(0) != '\n') {
            s.append((char) one.get(0));
        }
        return s.toString();
    }

    @Test
    void servesOneCallOnTheClientsStreamsAndReportsStatusAndOffsets() throws Exception {
        CompletableFuture<Integer> standby = standby(Duration.ofSeconds(60));
        try (SocketChannel c = connect()) {
            assertThat(greeting(c)).isEqualTo("rdflux-standby 1 " + ProcessHandle.current().pid());
            assertThat(Files.exists(place.socket(0))).as("one call per process: the name is gone").isFalse();
            send(c, StandbyContextTest.items("P" + PID, "Ardsend", "Ahost", "F0 reg 2 -", "F1 reg 5 -", "F2 reg 0 a"));
            assertThat(read(c, 1).get()).isEqualTo((byte) 'Y');
            ByteBuffer x = read(c, ExitFrame.SIZE);
            assertThat(x.remaining()).isEqualTo(ExitFrame.SIZE);
            assertThat(x.get()).isEqualTo((byte) 'X');
            assertThat(x.getInt()).isEqualTo(7);
            assertThat(x.getLong()).as("stdin's final offset").isEqualTo(5);
            assertThat(x.getLong()).as("stdout's final offset").isEqualTo(12);
            assertThat(x.getLong()).as("stderr's final offset").isEqualTo(3 + 4);
        }
        assertThat(standby.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(served.get().argv()).containsExactly("rdsend", "host");
        assertThat(Files.readString(proc.resolve(PID + "/fd/1"))).isEqualTo("kept:cdedata");
        assertThat(Files.readString(proc.resolve(PID + "/fd/2"))).as("appended").isEqualTo("wassaid");
    }

    @Test
    void streamsItCannotOpenAreANoAndTheCallIsNotRun() throws Exception {
        CompletableFuture<Integer> standby = standby(Duration.ofSeconds(60));
        try (SocketChannel c = connect()) {
            greeting(c);
            send(c, StandbyContextTest.items("P999999999", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"));
            assertThat(read(c, 2)).isEqualTo(ByteBuffer.wrap(new byte[] {'N'}));
        }
        assertThat(standby.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(served.get()).isNull();
    }

    /**
     * A client whose stdin is a named FIFO whose writer has gone: opening it again would wait for
     * a writer for good (before: the standby hung in open(2) and never exited). It says no at
     * once, and the client runs the JVM.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aNamedFifoWithoutAWriterIsANoNotAHang() throws Exception {
        Path fifo = dir.resolve("fifo");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
        Process client = new ProcessBuilder("sh", "-c", "exec sleep 60 < \"$0\"", fifo.toString()).start();
        try {
            try (FileOutputStream writer = new FileOutputStream(fifo.toFile())) {
                writer.write('x');   // lets the client's open return; the writer then goes
            }
            Path fd0 = Path.of("/proc/" + client.pid() + "/fd/0");
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> Files.isSymbolicLink(fd0) && Files.readSymbolicLink(fd0).equals(fifo));
            CompletableFuture<Integer> standby = standby(Duration.ofSeconds(60), Path.of("/proc"));
            try (SocketChannel c = connect()) {
                greeting(c);
                send(c, StandbyContextTest.items("P" + client.pid(), "Ardsend", "F0 pipe 0 -", "F1 chr 0 -", "F2 chr 0 -"));
                assertThat(read(c, 2)).isEqualTo(ByteBuffer.wrap(new byte[] {'N'}));
            }
            assertThat(standby.get(30, TimeUnit.SECONDS)).isZero();
            assertThat(served.get()).isNull();
        } finally {
            client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMalformedContextGetsNoAnswer() throws Exception {
        CompletableFuture<Integer> standby = standby(Duration.ofSeconds(60));
        try (SocketChannel c = connect()) {
            greeting(c);
            send(c, StandbyContextTest.items("P" + PID, "Ardsend", "F0 sock 0 -", "F1 pipe 0 -", "F2 pipe 0 -"));
            assertThat(read(c, 1).remaining()).as("closed without Y or N").isZero();
        }
        assertThat(standby.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(served.get()).isNull();
    }

    @Test
    void anUnusedStandbyEndsAfterItsIdleTimeAndRemovesItsSocket() throws Exception {
        CompletableFuture<Integer> standby = standby(Duration.ofSeconds(1));
        Awaitility.await("the standby listens").atMost(Duration.ofSeconds(20)).until(() -> Files.exists(place.socket(0)));
        assertThat(standby.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(Files.exists(place.socket(0))).isFalse();
        assertThat(served.get()).isNull();
    }

    @Test
    void withBothSlotsTakenAStandbyEndsAtOnce() throws Exception {
        assertThat(place.ensure()).isNull();
        StandbyPlace.Slot a = place.take();
        StandbyPlace.Slot b = place.take();
        try {
            assertThat(standby(Duration.ofSeconds(60)).get(30, TimeUnit.SECONDS)).isZero();
            assertThat(Files.exists(place.socket(0)) || Files.exists(place.socket(1))).isFalse();
        } finally {
            a.lock().channel().close();
            b.lock().channel().close();
        }
    }
}
