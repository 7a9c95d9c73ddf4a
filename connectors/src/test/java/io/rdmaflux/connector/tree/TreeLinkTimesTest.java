package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Symbolic links arrive with their mtime to the nanosecond (librdflux-fs.so's utimensat); the
 * library's temporary copies that killed JVMs left are removed by the next JVM that loads it.
 */
class TreeLinkTimesTest {

    @TempDir
    Path dir;

    @Test
    void copiesLeftByDeadJvmsAreRemovedAndNothingElse() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long dead = gone.pid();
        long alive = ProcessHandle.current().pid();
        Path own = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + alive + "-1"));
        Path stale = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + dead + "-2"));
        Files.write(stale.resolve("librdflux-fs.so"), new byte[0]);
        Path staleEmpty = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + dead + "-3"));
        Path live = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + alive + "-4"));
        Files.write(live.resolve("librdflux-fs.so"), new byte[0]);
        Path notOurs = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + dead + "-5"));
        Files.write(notOurs.resolve("something-else"), new byte[0]);
        Path oldStyle = Files.createDirectory(tmp.resolve(LinkTimes.COPY_PREFIX + "1234567890"));
        Path otherName = Files.createDirectory(tmp.resolve("rdma-flux-native-" + dead + "-6"));

        assertThat(LinkTimes.removeStaleCopies(tmp, own)).containsExactlyInAnyOrder(stale, staleEmpty);
        try (var left = Files.list(tmp)) {
            assertThat(left).containsExactlyInAnyOrder(own, live, notOurs, oldStyle, otherName);
        }
        assertThat(notOurs.resolve("something-else")).exists();
    }

    @Test
    void aLinkKeepsItsNanosecondsOnANewCopyAndOnASync() throws Exception {
        assumeTrue(LinkTimes.class.getResource(LinkTimes.RESOURCE) != null,
                "this build has no librdflux-fs.so (Maven's native-fs profile needs libc6-dev, gcc and make)");
        assertThat(LinkTimes.available()).as("the packaged library loads").isTrue();
        Path src = Files.createDirectories(dir.resolve("src"));
        Path dst = dir.resolve("dst");
        Files.createDirectories(src.resolve("d"));
        Files.createSymbolicLink(src.resolve("d/link"), Path.of("../nowhere"));
        touch(src.resolve("d/link"), "1700000000.123456789");
        assumeTrue(nanos(src.resolve("d/link")) == 1_700_000_000_123_456_789L,
                "this file system keeps no nanoseconds for links");

        copy(src, dst, null);
        assertThat(nanos(dst.resolve("d/link"))).isEqualTo(1_700_000_000_123_456_789L);

        // The same link again (kept, its time set) and a new one in an existing directory (renamed in).
        touch(src.resolve("d/link"), "1600000000.987654321");
        Files.createSymbolicLink(src.resolve("d/other"), Path.of("link"));
        touch(src.resolve("d/other"), "1500000000.000000999");
        copy(src, dst, TreeListing.local(dst, false).block(T));
        assertThat(nanos(dst.resolve("d/link"))).isEqualTo(1_600_000_000_987_654_321L);
        assertThat(nanos(dst.resolve("d/other"))).isEqualTo(1_500_000_000_000_000_999L);
    }

    private static void copy(Path src, Path dst, TreeListing baseline) {
        TreeSource source = TreeSource.of(src, TreeSourceOptions.defaults()
                .withBaseline(baseline, TreeSourceOptions.Compare.SIZE_AND_MTIME));
        assertThat(TreeSink.of(dst, TreeSinkOptions.defaults()).writeTree(source.open()).block(T).complete()).isTrue();
    }

    /** Sets a link's own time with coreutils' touch (utimensat), a tool outside this project. */
    private static void touch(Path link, String seconds) throws Exception {
        Process p = new ProcessBuilder("touch", "-h", "-d", "@" + seconds, link.toString()).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }

    private static long nanos(Path p) throws IOException {
        return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).to(TimeUnit.NANOSECONDS);
    }
}
