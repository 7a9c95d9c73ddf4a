package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.chunksOf;
import static io.rdmaflux.connector.TestSupport.list;
import static io.rdmaflux.connector.TestSupport.randomBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

class FileSinkTest {

    private static final Duration T = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void writesTheStreamAndRenamesItIntoPlace() throws IOException {
        byte[] data = randomBytes(5 * 4096 + 3, 11);
        BufferPool pool = new BufferPool("sink", 4096, 8);
        Path out = dir.resolve("out.bin");
        FileSink sink = FileSink.of(out);

        StepVerifier.create(sink.write(chunksOf(data, 4096, pool)))
                .expectNext(new SinkResult(data.length, out.toString()))
                .expectComplete().verify(T);
        assertThat(Files.readAllBytes(out)).isEqualTo(data);
        assertThat(list(dir)).containsExactly("out.bin");
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void emptyStreamCreatesAnEmptyFile() throws IOException {
        Path out = dir.resolve("empty");
        StepVerifier.create(FileSink.of(out).write(Flux.empty()))
                .expectNext(new SinkResult(0, out.toString()))
                .expectComplete().verify(T);
        assertThat(out).exists().isEmptyFile();
    }

    @Test
    void replacesAnExistingFileKeepingItsPermissions() throws IOException {
        Path out = dir.resolve("old");
        Files.write(out, randomBytes(100_000, 12));
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-r-----"));
        byte[] data = randomBytes(1000, 13);
        BufferPool pool = new BufferPool("replace", 512, 4);

        FileSink.of(out, SinkOptions.defaults().withFsync(true)).write(chunksOf(data, 512, pool)).block(T);

        assertThat(Files.readAllBytes(out)).isEqualTo(data);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out))).isEqualTo("rw-r-----");
        assertThat(list(dir)).containsExactly("old");
    }

    @Test
    void upstreamFailureRemovesThePartialFileKeepsTheOldOneAndSaysSo() throws IOException {
        Path out = dir.resolve("keep.bin");
        byte[] old = randomBytes(10, 14);
        Files.write(out, old);
        BufferPool pool = new BufferPool("fail", 1024, 8);
        Flux<Chunk> data = chunksOf(randomBytes(3 * 1024, 15), 1024, pool)
                .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "stream incomplete: peer died")));

        StepVerifier.create(FileSink.of(out).write(data))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOfSatisfying(RdmaFluxException.class,
                                pe -> assertThat(pe.code()).isEqualTo(ErrorCode.TRUNCATED))
                        .hasMessage("stream incomplete: peer died; partial file removed, " + out + " left unchanged"))
                .verify(T);
        assertThat(list(dir)).containsExactly("keep.bin");
        assertThat(Files.readAllBytes(out)).isEqualTo(old);
        await("chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void appendingAddsToTheFileAndCreatesAMissingOne() throws IOException {
        Path out = dir.resolve("log");
        byte[] first = randomBytes(3000, 40);
        byte[] second = randomBytes(5000, 41);
        BufferPool pool = new BufferPool("append", 1024, 8);

        FileSink.appending(out, SinkOptions.defaults()).write(chunksOf(first, 1024, pool)).block(T);
        FileSink.appending(out, SinkOptions.defaults()).write(chunksOf(second, 1024, pool)).block(T);

        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        assertThat(Files.readAllBytes(out)).isEqualTo(both);
        assertThat(list(dir)).containsExactly("log");
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void failedAppendCutsTheFileBackToWhatItWas() throws IOException {
        Path out = dir.resolve("log");
        byte[] old = randomBytes(700, 42);
        Files.write(out, old);
        BufferPool pool = new BufferPool("append-fail", 1024, 8);
        Flux<Chunk> data = chunksOf(randomBytes(3 * 1024, 43), 1024, pool)
                .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "stream incomplete: peer died")));

        StepVerifier.create(FileSink.appending(out, SinkOptions.defaults()).write(data))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RdmaFluxException.class)
                        .hasMessageStartingWith("stream incomplete: peer died"))
                .verify(T);
        assertThat(Files.readAllBytes(out)).isEqualTo(old);

        Path fresh = dir.resolve("fresh");
        StepVerifier.create(FileSink.appending(fresh, SinkOptions.defaults())
                        .write(chunksOf(randomBytes(2048, 44), 1024, pool)
                                .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "cut")))))
                .expectError(RdmaFluxException.class).verify(T);
        assertThat(fresh).doesNotExist();
        // A chunk in flight when the error came is released on the write thread, after the error.
        await("chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void cancelRemovesThePartialFileAndReleasesEveryChunk() throws IOException {
        BufferPool pool = new BufferPool("cancel", 1024, 8);
        TestPublisher<Chunk> upstream = TestPublisher.createCold();
        Path out = dir.resolve("cancelled.bin");
        Disposable writing = FileSink.of(out).write(upstream).subscribe();

        await("sink requested its prefetch", () -> upstream.wasRequested());
        for (int i = 0; i < 3; i++) {
            Chunk c = pool.acquire();
            c.buffer().put(new byte[1024]).flip();
            upstream.next(c);
        }
        writing.dispose();

        await("chunks released", () -> pool.outstanding() == 0);
        await("partial file removed", () -> {
            try {
                return list(dir).isEmpty();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        upstream.assertCancelled();
    }

    @Test
    void requestsOnlyItsPrefetchAheadOfTheWrites() {
        TestPublisher<Chunk> upstream = TestPublisher.createCold();
        BufferPool pool = new BufferPool("prefetch", 16, 64);
        Path out = dir.resolve("prefetch");
        List<Long> requests = new CopyOnWriteArrayList<>();
        Disposable writing = FileSink.of(out, SinkOptions.defaults().withPrefetch(3))
                .write(Flux.from(upstream).doOnRequest(requests::add)).subscribe();
        await("initial request", () -> !requests.isEmpty());
        assertThat(requests.get(0)).isEqualTo(3);
        for (int i = 0; i < 10; i++) {
            Chunk c = pool.acquire();
            c.buffer().put(new byte[16]).flip();
            upstream.next(c);
        }
        upstream.complete();
        await("done", () -> Files.exists(out));
        assertThat(requests).allMatch(n -> n <= 3);
        assertThat(pool.outstanding()).isZero();
        writing.dispose();
    }

    @Test
    void opensWritesAndClosesOnTheIoSchedulerNotTheDeliveringThread() throws IOException {
        // Every call on the output records its thread, not only the open: a write or close
        // that ran on the delivering (non-blocking) thread must show.
        List<String> calls = new CopyOnWriteArrayList<>();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        WritableByteChannel out = Channels.newChannel(captured);
        ChannelSink sink = ChannelSink.of("capture", () -> {
            calls.add("open on " + thread());
            return new WritableByteChannel() {
                @Override
                public int write(ByteBuffer src) throws IOException {
                    calls.add("write on " + thread());
                    return out.write(src);
                }

                @Override
                public boolean isOpen() {
                    return out.isOpen();
                }

                @Override
                public void close() throws IOException {
                    calls.add("close on " + thread());
                    out.close();
                }
            };
        }, true);
        byte[] data = randomBytes(10_000, 16);
        // publishOn prefetches 2 and the sink 4: 6 chunks can be out at once.
        BufferPool pool = new BufferPool("threads", 1000, 8);
        sink.write(chunksOf(data, 1000, pool).publishOn(Schedulers.parallel(), 2)).block(T);
        assertThat(captured.toByteArray()).isEqualTo(data);
        assertThat(calls).first().asString().startsWith("open on ");
        assertThat(calls).filteredOn(c -> c.startsWith("write on ")).hasSizeGreaterThanOrEqualTo(10);
        assertThat(calls).last().asString().startsWith("close on ");
        assertThat(calls).allSatisfy(c -> assertThat(c).endsWith("(may block)").contains("boundedElastic"));
        assertThat(pool.outstanding()).isZero();
    }

    /** The current thread's name, and whether Reactor lets it block. */
    private static String thread() {
        return Thread.currentThread().getName() + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : " (may block)");
    }

    @Test
    void directoryTargetIsRefused() {
        assertThatThrownBy(() -> FileSink.of(dir))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(e.reason()).isEqualTo(ConnectorException.Reason.NOT_A_FILE);
                })
                .hasMessage("cannot write " + dir + ": is a directory");
    }

    @Test
    void missingDirectoryIsRefused() {
        Path out = dir.resolve("no/such/dir/file");
        assertThatThrownBy(() -> FileSink.of(out))
                .isInstanceOf(ConnectorException.class)
                .hasMessage("cannot write " + out + ": directory " + out.getParent() + " does not exist");
    }

    @Test
    void aNullDeviceIsWrittenInPlace() throws Exception {
        Path dev = nullDevice();
        FileSink sink = FileSink.of(dev);
        assertThat(sink.inPlace()).isTrue();
        BufferPool pool = new BufferPool("null", 4096, 4);
        StepVerifier.create(sink.write(chunksOf(randomBytes(40_000, 17), 4096, pool)))
                .expectNext(new SinkResult(40_000, dev.toString()))
                .expectComplete().verify(T);
        assertThat(pool.outstanding()).isZero();
        assertThat(((Integer) Files.getAttribute(dev, "unix:mode") & 0170000)).as("still a character device")
                .isEqualTo(0020000);
        assertThat(list(dir)).containsExactly("null");
    }

    @Test
    void aFailedStreamToANullDeviceSaysNothingOfTheBytesItDiscarded() throws Exception {
        BufferPool pool = new BufferPool("null", 4096, 4);
        StepVerifier.create(FileSink.of(nullDevice()).write(chunksOf(randomBytes(10_000, 19), 4096, pool)
                        .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "cut")))))
                .expectErrorSatisfies(e -> assertThat(e).hasMessage("cut"))
                .verify(T);
        // The failure is reported before the queued chunks are released (see WriteLoop.fail).
        await("chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void aFailedStreamToAnotherDeviceSaysHowMuchItWrote() throws Exception {
        // /dev/zero's numbers: writes succeed and are discarded, but it is not the null device.
        Path dev = dir.resolve("zero");
        Assumptions.assumeTrue(run("mknod", dev.toString(), "c", "1", "5") == 0, "mknod needs root");
        BufferPool pool = new BufferPool("zero", 4096, 4);
        StepVerifier.create(FileSink.of(dev).write(chunksOf(randomBytes(10_000, 20), 4096, pool)
                        .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "cut")))))
                .expectErrorSatisfies(e -> assertThat(e.getMessage())
                        .matches("cut; \\d+ bytes were already written to " + java.util.regex.Pattern.quote(dev.toString())))
                .verify(T);
        await("chunks released", () -> pool.outstanding() == 0);
    }

    /**
     * A character device with /dev/null's numbers, made with mknod in the test's directory: a
     * test never names the system's own /dev/null as a destination.
     */
    private Path nullDevice() throws Exception {
        Path dev = dir.resolve("null");
        Assumptions.assumeTrue(run("mknod", dev.toString(), "c", "1", "3") == 0, "mknod needs root");
        return dev;
    }

    @Test
    void fifoIsWrittenInPlace() throws Exception {
        Path fifo = dir.resolve("fifo");
        Assumptions.assumeTrue(run("mkfifo", fifo.toString()) == 0, "mkfifo is not available");
        FileSink sink = FileSink.of(fifo);
        assertThat(sink.inPlace()).isTrue();
        byte[] data = randomBytes(200_000, 18);
        Process reader = new ProcessBuilder("cat", fifo.toString()).start();
        BufferPool pool = new BufferPool("fifo", 8192, 4);
        java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return reader.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        SinkResult result = sink.write(chunksOf(data, 8192, pool)).block(T);
        byte[] got = read.get(30, TimeUnit.SECONDS);
        assertThat(reader.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(result.bytes()).isEqualTo(data.length);
        assertThat(got).isEqualTo(data);
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void regularFilesUnderDevShmAreWrittenThroughATemporaryFile() throws IOException {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm here");
        Path out = shm.resolve("rdflux-sink-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        BufferPool pool = new BufferPool("shm", 4096, 4);
        try {
            byte[] first = randomBytes(3 * 4096 + 5, 26);
            FileSink sink = FileSink.of(out);
            assertThat(sink.inPlace()).isFalse();
            sink.write(chunksOf(first, 4096, pool)).block(T);
            assertThat(Files.readAllBytes(out)).isEqualTo(first);
            // An existing file is replaced, not appended to.
            byte[] second = randomBytes(4096, 27);
            FileSink.of(out).write(chunksOf(second, 4096, pool)).block(T);
            assertThat(Files.readAllBytes(out)).isEqualTo(second);
            assertThat(pool.outstanding()).isZero();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    @Test
    void aSymbolicLinkIsFollowedAndKept() throws IOException {
        Path target = Files.write(dir.resolve("target.bin"), randomBytes(100, 28));
        Path link = Files.createSymbolicLink(dir.resolve("link.bin"), Path.of("target.bin"));
        byte[] data = randomBytes(5000, 29);
        FileSink.of(link).write(chunksOf(data, 1024, new BufferPool("link", 1024, 4))).block(T);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readAllBytes(target)).isEqualTo(data);
        assertThat(list(dir)).containsExactlyInAnyOrder("link.bin", "target.bin");
    }

    @Test
    void appendingThroughASymbolicLinkAppendsToItsTargetAndCutsThatBack() throws IOException {
        byte[] old = randomBytes(100, 45);
        Path target = Files.write(dir.resolve("target.log"), old);
        Path link = Files.createSymbolicLink(dir.resolve("link.log"), Path.of("target.log"));
        byte[] data = randomBytes(5000, 46);
        BufferPool pool = new BufferPool("append-link", 1024, 4);
        FileSink sink = FileSink.appending(link, SinkOptions.defaults());
        assertThat(sink.inPlace()).isTrue();
        assertThat(sink).hasToString("FileSink[" + link + ", appending]");

        sink.write(chunksOf(data, 1024, pool)).block(T);
        byte[] both = new byte[old.length + data.length];
        System.arraycopy(old, 0, both, 0, old.length);
        System.arraycopy(data, 0, both, old.length, data.length);
        assertThat(Files.readAllBytes(target)).isEqualTo(both);

        StepVerifier.create(FileSink.appending(link, SinkOptions.defaults())
                        .write(chunksOf(randomBytes(3000, 47), 1024, pool)
                                .concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "cut")))))
                .expectError(RdmaFluxException.class).verify(T);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readAllBytes(target)).isEqualTo(both);
        assertThat(list(dir)).containsExactlyInAnyOrder("link.log", "target.log");
        await("chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void aDanglingSymbolicLinkGetsItsTargetCreatedAsByAShell() throws IOException {
        // `> link` and `>> link` where link -> sub/target that does not exist yet: a shell
        // creates sub/target through the link and keeps the link.
        Files.createDirectory(dir.resolve("sub"));
        Path link = Files.createSymbolicLink(dir.resolve("link.bin"), Path.of("sub/target.bin"));
        Path chained = Files.createSymbolicLink(dir.resolve("chained.bin"), Path.of("link.bin"));
        Path target = dir.resolve("sub/target.bin");
        BufferPool pool = new BufferPool("dangling", 1024, 4);
        byte[] data = randomBytes(3000, 48);

        FileSink.of(chained, SinkOptions.defaults()).write(chunksOf(data, 1024, pool)).block(T);
        assertThat(Files.readAllBytes(target)).isEqualTo(data);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.isSymbolicLink(chained)).isTrue();
        Files.delete(target);

        FileSink.appending(link, SinkOptions.defaults()).write(chunksOf(data, 1024, pool)).block(T);
        assertThat(Files.readAllBytes(target)).isEqualTo(data);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        Files.delete(target);

        // A failed append through the dangling link removes what it created: the link dangles again.
        StepVerifier.create(FileSink.appending(link, SinkOptions.defaults())
                        .write(chunksOf(data, 1024, pool).concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "cut")))))
                .expectError(RdmaFluxException.class).verify(T);
        assertThat(target).doesNotExist();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(list(dir)).containsExactlyInAnyOrder("link.bin", "chained.bin", "sub");
        assertThat(list(dir.resolve("sub"))).isEmpty();
        // A chunk in flight when the error came is released on the write thread, after the error.
        await("chunks released", () -> pool.outstanding() == 0);
    }

    @Test
    void anOpenDescriptorsFileIsAppendedToInPlace() throws IOException {
        // /dev/stdout > file, as this process sees its own descriptor of a file.
        Path file = Files.write(dir.resolve("descriptor.out"), new byte[] {'a', 'b'});
        try (var held = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            Path fd = descriptorOf(file);
            Assumptions.assumeTrue(fd != null, "no /proc/self/fd here");
            FileSink sink = FileSink.of(fd);
            assertThat(sink.inPlace()).isTrue();
            sink.write(chunksOf(new byte[] {'c', 'd'}, 1024, new BufferPool("fd", 1024, 2))).block(T);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(new byte[] {'a', 'b', 'c', 'd'});
        assertThat(list(dir)).containsExactly("descriptor.out");
    }

    /** /proc/self/fd/N for a file this process has open, or null. */
    private static Path descriptorOf(Path file) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return null;
        }
        try (var entries = Files.list(fds)) {
            for (Path fd : (Iterable<Path>) entries::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).equals(file.toRealPath())) {
                        return fd;
                    }
                } catch (IOException e) {
                    // Closed meanwhile.
                }
            }
        }
        return null;
    }

    @Test
    void partialFilesOfDeadProcessesAreRemovedOthersAreLeftAlone() throws Exception {
        Path out = dir.resolve("out.bin");
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String mine = PartFiles.next(out).getFileName().toString();
        String self = "-" + ProcessHandle.current().pid() + "-";
        Path dead = Files.createFile(dir.resolve(mine.replace(self, "-" + ended.pid() + "-")));
        Path live = Files.createFile(dir.resolve(mine));
        Path foreign = Files.createFile(dir.resolve(".out.bin.rdflux-0000abcd-" + ended.pid() + "-12345678.part"));
        Path older = Files.createFile(dir.resolve(".out.bin.rdflux-0a1b2c3d.part"));

        FileSink.of(out).write(chunksOf(randomBytes(100, 30), 1024, new BufferPool("parts", 1024, 2))).block(T);

        assertThat(dead).doesNotExist();
        assertThat(live).exists();
        assertThat(foreign).exists();
        assertThat(older).exists();
        assertThat(out).exists();
    }

    @Test
    void permissionDeniedIsAOneLineSinkFailureBeforeAnyStream() {
        // Root bypasses file modes, but not sysfs: creating a file at its top is refused.
        Path out = Path.of("/sys/rdflux-test.out");
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/sys")), "no /sys here");
        assertThatThrownBy(() -> FileSink.of(out))
                .isInstanceOfSatisfying(ConnectorException.class, ce -> {
                    assertThat(ce.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(ce.reason()).isEqualTo(ConnectorException.Reason.PERMISSION_DENIED);
                })
                .hasMessage("cannot write " + out + ": permission denied");
    }

    @Test
    void readOnlyFileSystemIsAOneLineSinkFailure() throws Exception {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Assumptions.assumeTrue(run("mount", "--bind", ro.toString(), ro.toString()) == 0,
                "cannot bind-mount here (needs root and CAP_SYS_ADMIN); skipping the read-only test");
        try {
            Assumptions.assumeTrue(run("mount", "-o", "remount,ro,bind", ro.toString()) == 0,
                    "cannot remount read-only here; skipping");
            Path out = ro.resolve("out.bin");
            // Found when the sink is made, before any stream: rdrecv exits 73 before it listens.
            assertThatThrownBy(() -> FileSink.of(out))
                    .isInstanceOfSatisfying(ConnectorException.class,
                            ce -> assertThat(ce.reason()).isEqualTo(ConnectorException.Reason.PERMISSION_DENIED))
                    .hasMessage("cannot write " + out + ": read-only file system");
        } finally {
            run("umount", ro.toString());
        }
    }

    @Test
    void diskFullRemovesThePartialFileAndSaysSo() throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("tiny"));
        Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt.toString()) == 0,
                "cannot mount a small tmpfs here (needs root and CAP_SYS_ADMIN); skipping the disk-full test");
        try {
            Path out = mnt.resolve("big.bin");
            BufferPool pool = new BufferPool("enospc", 64 * 1024, 4);
            StepVerifier.create(FileSink.of(out).write(chunksOf(randomBytes(1 << 20, 21), 64 * 1024, pool)))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOfSatisfying(ConnectorException.class, ce -> {
                                assertThat(ce.code()).isEqualTo(ErrorCode.SINK_FAILED);
                                assertThat(ce.reason()).isEqualTo(ConnectorException.Reason.NO_SPACE);
                            })
                            .hasMessage("cannot write " + out + ": disk full (no space left on device); "
                                    + "partial file removed, " + out + " left unchanged"))
                    .verify(T);
            assertThat(list(mnt)).isEmpty();
            await("chunks released", () -> pool.outstanding() == 0);
        } finally {
            run("umount", mnt.toString());
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
