package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory that grows with a tree's entries, through the real launchers: a tree copy and a sync
 * hold a few dozen bytes an entry, so that they run in a heap far smaller than the launchers'
 * (a tenth of it here, for a tree a tenth of the 1.2 million files docs/benchmarks.md measures);
 * what a peer's stream makes a process hold is bounded in bytes and refused past the bound with
 * one line; and a JVM out of memory anyway exits at once with 3 and one line.
 */
class MemoryE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(300);
    /** A heap too small for the 100,000-entry listing as a map of entries (15 MB), ample when packed. */
    private static final String SMALL_HEAP = "-Xms16m -Xmx24m";

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir);

    private Tool run(String tool, String javaOpts, String... args) {
        return Tool.start(dir, tool, ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir + " " + javaOpts), args);
    }

    @Test
    void aJvmOutOfMemoryExitsAtOnceWithThreeAndOneLineOnStderr() throws IOException {
        // 2 MiB is less than the tools need to start: the first allocation past it fails.
        Tool t = run("rdcp", "-Xms2m -Xmx2m", "--help");
        int code = t.exitCode(LIMIT);
        String out = new String(t.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(code).as(t.err()).isEqualTo(ExitCode.OUT_OF_MEMORY);
        assertThat(t.err().lines().toList()).as(t.err()).containsExactly(
                "Terminating due to java.lang.OutOfMemoryError: Java heap space");
        assertThat(out).isEmpty();   // the JVM's own report never lands in the data
    }

    @Test
    void aJvmThatCannotStartSaysWhyOnStderr() throws IOException {
        // The JVM's own messages go to stderr, not to stdout (the data) and not nowhere.
        Tool t = run("rdcp", "-Xms64m -Xmx16m", "--help");
        int code = t.exitCode(LIMIT);
        String out = new String(t.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(code).as(t.err()).isEqualTo(1);
        assertThat(t.err()).contains("Initial heap size set to a larger value than the maximum heap size");
        assertThat(out).isEmpty();
    }

    @Test
    void aTreeOfAHundredThousandEntriesCopiesAndSyncsInASmallHeap() throws IOException {
        Path src = Files.createDirectory(dir.resolve("src"));
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        for (int d = 0; d < 100; d++) {
            Path sub = Files.createDirectory(src.resolve(String.format("d%04d", d)));
            for (int f = 0; f < 1000; f++) {
                Path file = Files.createFile(sub.resolve(String.format("f%06d", f)));
                // Each file has a second name outside the tree (as in a snapshot of hard-linked
                // backups): both ends keep every one's path, in case the tree names it again.
                Files.createLink(elsewhere.resolve(d + "-" + f), file);
            }
        }
        String dst = dir.resolve("dst").toString();
        Tool copy = run("rdcp", SMALL_HEAP, "-r", src + "/", dst + "/");
        assertThat(copy.exitCode(LIMIT)).as(copy.err()).isZero();
        // The sync reads the destination's listing of every entry first: the part that grew with them.
        Files.writeString(src.resolve("d0042/f000042"), "changed");
        Tool sync = run("rdcp", SMALL_HEAP, "--sync", "--delete", "-r", src + "/", dst + "/");
        assertThat(sync.exitCode(LIMIT)).as(sync.err()).isZero();
        assertThat(Path.of(dst, "d0042/f000042")).hasContent("changed");
        try (var s = Files.list(Path.of(dst, "d0099"))) {
            assertThat(s.count()).isEqualTo(1000);
        }
    }

    @Test
    void aStreamOfManyHardLinkTargetsIsRefusedByNameInsteadOfRunningTheSinkOutOfMemory() throws IOException {
        // A peer's tree stream whose every file is a hard link's possible target, with 1 KiB
        // paths: the sink keeps each such path to the end. 20,000 of them held 22 MB here.
        Path in = dir.resolve("in.bin");
        Files.write(in, linkTargets(20_000));
        Files.writeString(dir.resolve("p.yaml"), "source: {type: file, path: in.bin}\nsink: {type: tree, path: dst}\n");
        Tool t = run("rdflux", SMALL_HEAP, "run", "p.yaml");
        int code = t.exitCode(LIMIT);
        assertThat(code).as(t.err()).isEqualTo(ExitCode.DATA);
        assertThat(t.err()).contains("writing this tree needs more than ").contains(" MiB of memory here")
                .contains("RDFLUX_JAVA_OPTS=-Xmx").doesNotContain("OutOfMemoryError").doesNotContain("\tat ");
    }

    /**
     * A tree stream (docs/tree-format.md), written here byte by byte: the root, four nested
     * directories of 250-byte names, then {@code n} empty files with the LINK_TARGET flag.
     */
    private static byte[] linkTargets(int n) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.write("RDTR".getBytes(StandardCharsets.US_ASCII));
        out.writeShort(1);
        out.writeShort(0);
        int id = 0;
        entry(out, id++, 2, 0, "");
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            deep.append(i == 0 ? "" : "/").append(String.valueOf((char) ('a' + i)).repeat(250));
            entry(out, id++, 2, 0, deep.toString());
        }
        for (int i = 0; i < n; i++) {
            int file = id++;
            entry(out, file, 1, 1 | 2, deep + "/" + i);   // DATA | LINK_TARGET, no bytes
            out.writeByte(4);                                // FILE_END OK, length 0, CRC32C 0
            out.writeInt(19);
            out.writeInt(file);
            out.writeByte(0);
            out.writeLong(0);
            out.writeInt(0);
            out.writeShort(0);
        }
        out.writeByte(6);   // END
        out.writeInt(20);
        out.writeLong(id);
        out.writeLong(0);
        out.writeInt(0);
        return bytes.toByteArray();
    }

    private static void entry(DataOutputStream out, int id, int kind, int flags, String path) throws IOException {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        out.writeByte(1);
        out.writeInt(28 + p.length);
        out.writeInt(id);
        out.writeByte(kind);
        out.writeByte(flags);
        out.writeShort(kind == 2 ? 0755 : 0644);
        out.writeLong(1_000_000_000_000_000_000L);
        out.writeLong(0);
        out.writeShort(p.length);
        out.write(p);
        out.writeShort(0);
    }
}
