package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ChannelSource;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.error.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Files that change while they are read, and files and directories that cannot be read: each
 * fails by name, the others arrive, and nothing partial is left.
 */
class TreeFaultsTest {

    private static final int CHUNK = 64 * 1024;

    @TempDir
    Path dir;

    private interface Change {
        void apply(Path big) throws IOException;
    }

    @Test
    void aFileThatShrinksWhileReadFailsByName() throws IOException {
        changedWhileRead(big -> {
            try (FileChannel ch = FileChannel.open(big, StandardOpenOption.WRITE)) {
                ch.truncate(1 << 20);
            }
        }, "big.bin: shrank while it was read (1048576 of 8388608 bytes)");
    }

    @Test
    void aFileWrittenToWhileReadFailsByName() throws IOException {
        changedWhileRead(big -> {
            try (FileChannel ch = FileChannel.open(big, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 6 << 20);
            }
        }, "big.bin: changed while it was read");
    }

    @Test
    void aFileThatGrowsWhileReadFailsByName() throws IOException {
        changedWhileRead(big -> Files.write(big, new byte[100], StandardOpenOption.APPEND),
                "big.bin: changed size while it was read (8388608 -> 8388708 bytes)");
    }

    @Test
    void aSmallFilePackedWithOthersThatChangesFailsByName() throws IOException {
        // No lanes: every file is packed in walk order, the change lands mid-file all the same.
        changedWhileRead(big -> Files.write(big, new byte[10], StandardOpenOption.APPEND),
                "big.bin: changed size while it was read (8388608 -> 8388618 bytes)", 0);
    }

    private void changedWhileRead(Change change, String failure) throws IOException {
        changedWhileRead(change, failure, 1);
    }

    /**
     * Applies {@code change} to an 8 MiB file when the third chunk of the stream goes by: with
     * three 64 KiB buffers the source cannot have read more than a few hundred KiB of it then.
     */
    private void changedWhileRead(Change change, String failure, int parallel) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src"));
        Random r = new Random(5);
        Files.write(src.resolve("a-first"), Trees.bytes(r, 100));
        Path big = Files.write(src.resolve("big.bin"), Trees.bytes(r, 8 << 20));
        // An old mtime, so that any write now changes it whatever the clock's granularity.
        Files.setLastModifiedTime(big, FileTime.from(946_684_800, TimeUnit.SECONDS));
        Files.write(src.resolve("z-last"), Trees.bytes(r, 100));
        TreeSourceOptions options = TreeSourceOptions.defaults().withParallelFiles(parallel)
                .withLargeFileSize(1 << 20).withIo(SourceOptions.defaults().withChunkSize(CHUNK).withBuffers(3));
        AtomicInteger seen = new AtomicInteger();
        Flux<Chunk> stream = TreeSource.of(src, options).open().doOnNext(c -> {
            if (seen.incrementAndGet() == 3) {
                try {
                    change.apply(big);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
        });
        Path dst = dir.resolve("dst");

        TreeReport report = TreeSink.of(dst).writeTree(stream).block(T);

        assertThat(report.failureLines()).containsExactly(failure);
        assertThat(Trees.listing(dst)).containsOnlyKeys(".", "a-first", "z-last");
        assertThat(Trees.temporaries(dst)).isEmpty();
    }

    /** The copy is that one file: it fails as a whole, naming the destination, not as a partial transfer of ".". */
    @Test
    void aTreeOfOneFileThatCannotBeWrittenFailsAsAWhole() throws IOException {
        Path src = Files.write(dir.resolve("one.bin"), Trees.bytes(new Random(6), 1000));
        Path dst = dir.resolve("x".repeat(300));   // ENAMETOOLONG, whoever runs the test
        assertThatThrownBy(() -> TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED))
                .hasMessageStartingWith("cannot write " + dst + ": ");
        assertThat(Trees.temporaries(dir)).isEmpty();
    }

    @Test
    void unreadableFilesAndDirectoriesFailByNameAndTheRestArrives() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.write(src.resolve("a-readable"), new byte[] {1});
        Files.write(src.resolve("locked"), new byte[] {2});
        Path sealed = Files.createDirectories(src.resolve("sealed"));
        Files.write(sealed.resolve("inside"), new byte[] {3});
        Files.write(src.resolve("z-readable"), new byte[] {4});
        Files.setPosixFilePermissions(src.resolve("locked"), PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(sealed, PosixFilePermissions.fromString("---------"));
        Path dst = dir.resolve("dst");

        TreeReport report;
        if (Files.isReadable(src.resolve("locked"))) {
            // Root reads anything: send from a process of our own that lacks the capabilities to.
            report = fromUnprivilegedProcess(src, dst);
        } else {
            report = TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);
        }

        assertThat(report.failureLines()).containsExactly(
                "locked: cannot open it: permission denied",
                "sealed: cannot list this directory: permission denied; its contents were not copied");
        assertThat(Files.readAllBytes(dst.resolve("a-readable"))).containsExactly(1);
        assertThat(Files.readAllBytes(dst.resolve("z-readable"))).containsExactly(4);
        assertThat(dst.resolve("locked")).doesNotExist();
        assertThat(Files.isDirectory(dst.resolve("sealed"))).isTrue();
        Files.setPosixFilePermissions(dst.resolve("sealed"), PosixFilePermissions.fromString("rwx------"));
        assertThat(Trees.listing(dst)).containsOnlyKeys(".", "a-readable", "sealed", "z-readable");
    }

    /** TreeSourceMain under setpriv without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, into a TreeSink. */
    private static TreeReport fromUnprivilegedProcess(Path src, Path dst) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "running as root without setpriv (util-linux): cannot make a file unreadable");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of("/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                java, "-cp", System.getProperty("java.class.path"), TreeSourceMain.class.getName(), src.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            ChannelSource stream = ChannelSource.ofStream("the source process", p::getInputStream, true);
            return TreeSink.of(dst).writeTree(stream.open()).block(T);
        } finally {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
        }
    }
}
