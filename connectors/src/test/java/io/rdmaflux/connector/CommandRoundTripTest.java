package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.randomFile;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.InboundStream;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * The ZFS-shaped case without ZFS: {@code tar c} as the source command on one side of a real
 * channel (TCP on loopback), {@code tar x} as the sink command on the other. BlockHound
 * watches every thread that must not block (this class runs in the BlockHound JVM).
 */
@Tag("blockhound")
class CommandRoundTripTest {

    private static final Duration T = Duration.ofSeconds(60);
    private static final String KEY = "command-round-trip";

    @TempDir
    Path dir;

    private final CommandTestSupport t = new CommandTestSupport();

    @BeforeAll
    static void blockHound() {
        BlockHoundSupport.install();
    }

    @AfterEach
    void nothingLeftBehind() {
        t.awaitNoneLeft();
    }

    @Test
    void aTreeThroughTarCAndTarXArrivesTheSame() throws IOException {
        Path src = tree(dir.resolve("src"));
        Path dst = Files.createDirectory(dir.resolve("dst"));
        CommandSource source = CommandSource.of(List.of("tar", "c", "-C", src.toString(), "."))
                .withOptions(t.options(dir));
        CommandSink sink = CommandSink.of(List.of("tar", "xp", "-C", dst.toString()))
                .withOptions(t.options(dir));
        AtomicReference<SinkResult> received = new AtomicReference<>();

        ReceiverServer server = receiver(ChannelOptions.defaults(),
                stream -> sink.write(stream.receiveChunks(), stream.metadata()).doOnNext(received::set).then());
        try {
            sender(server, ChannelOptions.defaults()).send(source.metadata(), session -> source.open()).block(T);
        } finally {
            server.dispose();
        }

        assertThat(received.get().exitStatus()).hasValue(0);
        assertThat(snapshot(dst)).isEqualTo(snapshot(src));
        assertThat(t.stderr).isEmpty();
    }

    @Test
    void aProducerKilledMidwayFailsBothSidesAndTarXIsKilledNotFedEndOfInput() throws Exception {
        Path src = tree(dir.resolve("src"));
        Path dst = Files.createDirectory(dir.resolve("dst"));
        // Small buffers everywhere and a sink command that does not read yet, so that tar c is
        // surely midway once its first bytes were sent: the whole path holds well under a
        // megabyte, and the tree is over 3 MiB.
        ChannelOptions small = ChannelOptions.defaults().withFrameSize(64 * 1024).withReceiveSlots(2).withSendSlots(2);
        CommandSource source = CommandSource.shell("echo $$ > producer.pid; exec tar c -C src .")
                .withOptions(t.options(dir))
                .withOptions(SourceOptions.defaults().withChunkSize(64 * 1024).withBuffers(2));
        // The sink command waits for "go" before it reads, so that the stream backs up; then
        // it extracts what it gets and writes `done` if its input ever ends.
        CommandSink sink = CommandSink.shell("while [ ! -e go ]; do sleep 0.05; done; tee part | tar x -C dst; touch done")
                .withOptions(t.options(dir))
                .withOptions(SinkOptions.defaults().withPrefetch(1));
        AtomicReference<Throwable> receiverError = new AtomicReference<>();
        AtomicLong sent = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);

        ReceiverServer server = receiver(small, stream -> sink.write(stream.receiveChunks(), stream.metadata())
                .doOnError(receiverError::set).then());
        CompletableFuture<Void> outcome = null;
        try {
            Mono<Void> sending = sender(server, small).send(source.metadata(), session -> source.open()
                    .doOnNext(c -> {
                        sent.addAndGet(c.remaining());
                        started.countDown();
                    }));
            outcome = sending.toFuture();
            assertThat(started.await(60, TimeUnit.SECONDS)).as("data sent").isTrue();
            long producer = Long.parseLong(Files.readString(dir.resolve("producer.pid")).trim());
            ProcessHandle.of(producer).ifPresent(ProcessHandle::destroyForcibly);
            Files.createFile(dir.resolve("go"));

            CompletableFuture<Void> result = outcome;
            assertThatThrownBy(() -> result.get(60, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(RdmaFluxException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED))
                    .hasMessage("command 'echo $$ > producer.pid; exec tar c -C src .' was killed by signal 9 (KILL)");
            await("the receiver's sink finished", () -> receiverError.get() != null);
        } finally {
            if (outcome != null) {
                outcome.cancel(true);
            }
            server.dispose();
        }

        assertThat(receiverError.get())
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED))
                .hasMessageContaining("was killed by signal 9 (KILL)")
                .hasMessageContaining("and never saw the end of its input");
        t.awaitNoneLeft();
        assertThat(dir.resolve("done")).as("the sink command saw end of input").doesNotExist();
        assertThat(sent.get()).isLessThan(Files.size(src.resolve("big.bin")));
    }

    /** A tree with subdirectories, modes, an empty file and a file larger than the path's buffers. */
    private static Path tree(Path root) throws IOException {
        Files.createDirectories(root.resolve("a/b/c"));
        Files.createDirectories(root.resolve("empty-dir"));
        randomFile(root, "big.bin", 3 * 1024 * 1024 + 17, 1);
        randomFile(root.resolve("a"), "one.txt", 1000, 2);
        randomFile(root.resolve("a/b"), "script.sh", 300, 3);
        randomFile(root.resolve("a/b/c"), "secret", 50, 4);
        Files.createFile(root.resolve("a/empty"));
        Files.setPosixFilePermissions(root.resolve("a/b/script.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(root.resolve("a/b/c/secret"), PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(root.resolve("a/b/c"), PosixFilePermissions.fromString("rwx--x---"));
        return root;
    }

    /** Every path under {@code root} with its type, mode and content digest. */
    private static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                String what = Files.isDirectory(p) ? "dir" : "file " + sha256(p);
                m.put(root.relativize(p).toString(), mode + " " + what);
            }
        }
        return m;
    }

    private static ReceiverServer receiver(ChannelOptions options,
                                           Function<InboundStream, Mono<Void>> handler) {
        return FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(TransportKind.TCP).options(options)
                .handle(handler).bind().block(T);
    }

    private static FluxSender sender(ReceiverServer server, ChannelOptions options) {
        return FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY)
                .transport(TransportKind.TCP).options(options);
    }
}
