package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files and directories whose mode gives their owner no read permission arrive with their mode
 * and time at a sink that runs without CAP_DAC_OVERRIDE, as any user's does: the sink sets a
 * time after the mode, and the JDK's call opens the file for reading to do it, which such a
 * mode forbids; the sink sets it by path.
 */
class TreeOwnerOnlyModesTest {

    @TempDir
    Path dir;

    @Test
    void writeOnlyAndNoPermissionFilesAndASealedDirectoryKeepModeAndTimeAtAnUnprivilegedSink() throws Exception {
        assumeTrue(LinkTimes.class.getResource(LinkTimes.RESOURCE) != null,
                "this build has no librdflux-fs.so (Maven's native-fs profile needs libc6-dev, gcc and make)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "no setpriv (util-linux): cannot drop CAP_DAC_OVERRIDE");
        Path src = Files.createDirectories(dir.resolve("src"));
        Path sealed = Files.createDirectories(src.resolve("sealed"));
        Files.writeString(sealed.resolve("inside"), "three");
        Files.writeString(src.resolve("none"), "one");
        Files.writeString(src.resolve("write-only"), "two");
        long[] times = {1_700_000_000_123_456_789L, 1_600_000_000_000_000_001L, 1_500_000_000_999_999_999L};
        setTime(src.resolve("none"), times[0]);
        setTime(src.resolve("write-only"), times[1]);
        setTime(sealed.resolve("inside"), times[2]);
        setTime(sealed, times[0]);
        Files.setAttribute(src.resolve("none"), "unix:mode", 0);
        Files.setAttribute(src.resolve("write-only"), "unix:mode", 0200);
        Files.setAttribute(sealed, "unix:mode", 0);
        assumeTrue(Files.isReadable(src.resolve("none")), "not root: the source cannot read these either");
        Path dst = dir.resolve("dst");

        // The source as root (reads anything), the sink without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH.
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<Process> pipe = ProcessBuilder.startPipeline(List.of(
                new ProcessBuilder(java, "-cp", cp, TreeSourceMain.class.getName(), src.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT),
                new ProcessBuilder("/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                        java, "-cp", cp, TreeSinkMain.class.getName(), dst.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)));
        Process sink = pipe.get(1);
        String failures = new String(sink.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        for (Process p : pipe) {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(failures).isEmpty();
        assertThat(sink.exitValue()).isZero();

        assertThat(mode(dst.resolve("none"))).isZero();
        assertThat(mode(dst.resolve("write-only"))).isEqualTo(0200);
        assertThat(mode(dst.resolve("sealed"))).isZero();
        assertThat(nanos(dst.resolve("none"))).isEqualTo(times[0]);
        assertThat(nanos(dst.resolve("write-only"))).isEqualTo(times[1]);
        assertThat(nanos(dst.resolve("sealed/inside"))).isEqualTo(times[2]);
        assertThat(nanos(dst.resolve("sealed"))).isEqualTo(times[0]);
        assertThat(Files.readString(dst.resolve("none"))).isEqualTo("one");
        assertThat(Files.readString(dst.resolve("write-only"))).isEqualTo("two");
        assertThat(Files.readString(dst.resolve("sealed/inside"))).isEqualTo("three");
    }

    private static void setTime(Path p, long nanos) throws IOException {
        Files.setLastModifiedTime(p, FileTime.from(nanos, TimeUnit.NANOSECONDS));
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    private static long nanos(Path p) throws IOException {
        return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).to(TimeUnit.NANOSECONDS);
    }
}
