package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real tree with one path longer than a tree stream carries (4096 bytes): the sending side
 * fails that entry, naming it, and sends the rest; the copy is partial, not refused whole.
 */
class LongPathTreeTest {

    @TempDir
    Path dir;

    /** 20 nested directories of 250-byte names under {@code deep}, built with relative mkdirs (no path reaches PATH_MAX). */
    static void deepTree(Path src) throws IOException {
        Files.createDirectories(src.resolve("deep"));
        Files.writeString(src.resolve("top.txt"), "top\n");
        Files.writeString(src.resolve("z.txt"), "z\n");
        shell(src.resolve("deep"), "for i in $(seq -w 1 20); do n=$i$(printf 'x%.0s' $(seq 1 248));"
                + " mkdir \"$n\" && cd \"$n\" || exit 1; done; echo leaf > leaf.txt");
    }

    /** The name of level {@code i} (1-based) of {@link #deepTree}. */
    static String level(int i) {
        return String.format("%02d", i) + "x".repeat(248);
    }

    @Test
    void anEntryWhosePathIsTooLongFailsByNameAndTheRestArrives() throws IOException {
        Path src = dir.resolve("src");
        deepTree(src);
        Path dst = dir.resolve("dst");
        TreeReport report = TreeSink.of(dst).writeTree(TreeSource.of(src).open()).block(T);
        // "deep/" and 16 levels make 4020 bytes; the 17th would make 4271.
        StringBuilder parent = new StringBuilder("deep");
        for (int i = 1; i <= 16; i++) {
            parent.append('/').append(level(i));
        }
        assertThat(report.failureLines()).containsExactly("deep/.../" + level(17) + ": not copied, nor anything below it:"
                + " its path (shortened here) is 4271 bytes, longer than the 4096 bytes a tree stream carries");
        assertThat(report.complete()).isFalse();
        assertThat(dst.resolve("top.txt")).hasContent("top");
        assertThat(dst.resolve("z.txt")).hasContent("z");
        assertThat(dst.resolve(parent.toString())).isDirectory();
    }

    @AfterEach
    void removeDeepTrees() throws IOException {
        // Java cannot delete paths past PATH_MAX; rm works down the tree relative to each directory.
        shell(dir, "rm -rf src dst");
    }

    static void shell(Path cwd, String script) throws IOException {
        Process p = new ProcessBuilder("bash", "-c", script).directory(cwd.toFile()).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("'" + script + "' failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            p.destroyForcibly();
        }
    }
}
