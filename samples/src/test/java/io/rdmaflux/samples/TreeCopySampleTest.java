package io.rdmaflux.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tree sample: a tree through TreeSource, the channel on loopback (TCP, port 0) and TreeSink, in process. */
class TreeCopySampleTest {

    @TempDir
    Path dir;

    @Test
    void aTreeArrivesIdenticalWithAndWithoutZstd() throws IOException {
        Path src = tree(dir.resolve("src"));
        for (int zstd : new int[] {0, 1}) {
            Path dst = dir.resolve("dst-" + zstd);
            ByteArrayOutputStream said = new ByteArrayOutputStream();

            int status = TreeCopySample.copy(src, dst, zstd, 2, new PrintStream(said, true, StandardCharsets.UTF_8));

            assertThat(status).as(said.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(said.toString(StandardCharsets.UTF_8)).contains("303 files, 5 directories, 1 links");
            assertThat(listing(dst)).isEqualTo(listing(src));
        }
    }

    @Test
    void aFileThatCannotBeReadIsNamedAndTheRestArrives() throws IOException {
        Path src = tree(dir.resolve("src"));
        Path locked = src.resolve("a/locked");
        Files.writeString(locked, "secret");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(locked), "root reads any file");
        ByteArrayOutputStream said = new ByteArrayOutputStream();

        int status = TreeCopySample.copy(src, dir.resolve("dst"), 0, 2, new PrintStream(said, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(23);
        assertThat(said.toString(StandardCharsets.UTF_8)).contains("failed: a/locked: cannot open it");
        assertThat(dir.resolve("dst/a/locked")).doesNotExist();
        assertThat(dir.resolve("dst/big.bin")).hasSameBinaryContentAs(src.resolve("big.bin"));
    }

    /** 300 small files in nested directories, three large ones, an empty directory, a symbolic link, old mtimes. */
    private static Path tree(Path root) throws IOException {
        Random r = new Random(3);
        for (int i = 0; i < 300; i++) {
            Path d = Files.createDirectories(root.resolve(i % 2 == 0 ? "a" : "b/c"));
            byte[] b = new byte[r.nextInt(5000)];
            r.nextBytes(b);
            Files.write(d.resolve("f" + i), b);
        }
        for (String big : new String[] {"big.bin", "a/big2.bin", "b/big3.bin"}) {
            byte[] b = new byte[3 << 20];
            r.nextBytes(b);
            Files.write(root.resolve(big), b);
        }
        Files.createDirectories(root.resolve("empty"));
        Files.createSymbolicLink(root.resolve("a/link"), Path.of("../big.bin"));
        Files.setPosixFilePermissions(root.resolve("a/f0"), PosixFilePermissions.fromString("rwx------"));
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                if (!Files.isSymbolicLink(p)) {
                    Files.setLastModifiedTime(p, FileTime.from(1_400_000_000L, TimeUnit.SECONDS));
                }
            }
        }
        return root;
    }

    /** Each entry under {@code root}: its type, permissions, mtime and contents or link target. */
    private static Map<String, String> listing(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                String what;
                if (Files.isSymbolicLink(p)) {
                    what = "link -> " + Files.readSymbolicLink(p);
                } else {
                    what = (Files.isDirectory(p) ? "dir " : "file " + Arrays.hashCode(Files.readAllBytes(p)) + " ")
                            + PosixFilePermissions.toString(Files.getPosixFilePermissions(p))
                            + " " + Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
                }
                m.put(root.relativize(p).toString(), what);
            }
        }
        return m;
    }
}
