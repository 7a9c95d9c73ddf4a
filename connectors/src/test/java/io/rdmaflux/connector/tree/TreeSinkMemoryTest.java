package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a tree stream makes the sink hold for the whole stream (directories, the files hard links
 * may name, with deletion every name) is bounded in bytes: a stream past the bound is refused,
 * named, rather than run the receiving process out of memory. And what it holds stays exact.
 */
class TreeSinkMemoryTest {

    private static final int LINK_TARGET = 2;

    @TempDir
    Path dir;

    /** 16 directories of 250-byte names, each listed: a prefix of about 4 KiB. */
    private static String deep(Crafted c) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            b.append(i == 0 ? "" : "/").append(String.valueOf((char) ('a' + i)).repeat(250));
            c.dir(b.toString());
        }
        return b.toString();
    }

    /** An empty file that later hard links may name. */
    private static void target(Crafted c, int id, String path) {
        c.entry(id, Crafted.FILE, Crafted.DATA_FLAG | LINK_TARGET, 0644, 0, path, "");
        c.fileEnd(id, 0, 0, 0, "");
    }

    private static void write(TreeWriter w, byte[] stream) throws IOException {
        w.open();
        for (int off = 0; off < stream.length; off += 65536) {
            w.write(ByteBuffer.wrap(stream, off, Math.min(65536, stream.length - off)));
        }
        w.commit();
    }

    @Test
    void hardLinkTargetsWithLongPathsArePastTheBoundAndTheStreamIsRefusedByName() {
        Crafted c = Crafted.tree();
        String deep = deep(c);
        for (int i = 0; i < 600; i++) {
            target(c, 17 + i, deep + "/t" + i);
        }
        byte[] stream = c.end().bytes();
        TreeWriter w = new TreeWriter(dir.resolve("dest"), TreeSinkOptions.defaults(), 1 << 20);
        assertThatThrownBy(() -> write(w, stream))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageContaining("writing this tree needs more than 1 MiB of memory here")
                .hasMessageContaining("RDFLUX_JAVA_OPTS=-Xmx");
        w.abort();
    }

    @Test
    void linksAndDeletionFindTheirNamesInThePackedSets() throws IOException {
        Path dest = Files.createDirectories(dir.resolve("dest"));
        Files.writeString(Files.createDirectories(dest.resolve("d")).resolve("stale"), "x");
        Crafted c = Crafted.tree().dir("d");
        int id = 2;
        for (int i = 0; i < 2000; i++) {
            target(c, id++, "d/t" + i);
        }
        c.entry(id++, Crafted.HARD_LINK, 0, 0644, 0, "d/h", "d/t1999");
        byte[] stream = c.end().bytes();
        TreeWriter w = new TreeWriter(dest, TreeSinkOptions.defaults().withDelete(true), 1 << 20);
        write(w, stream);
        assertThat(dest.resolve("d/stale")).doesNotExist();
        assertThat(Files.isSameFile(dest.resolve("d/h"), dest.resolve("d/t1999"))).isTrue();
        assertThat(w.report().failureCount()).isZero();
        try (var s = Files.list(dest.resolve("d"))) {
            assertThat(s.count()).isEqualTo(2001);
        }
    }
}
