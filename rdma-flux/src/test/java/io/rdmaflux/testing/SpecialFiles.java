package io.rdmaflux.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Devices and FIFOs for tests, made in a test's own directory: never the system's own (as root,
 * a tool that replaced its destination would destroy /dev/null for every process on the machine).
 * Every module's tests that need one use these, so the rule lives in one place.
 */
public final class SpecialFiles {

    public static final int S_IFMT = 0170000;
    public static final int S_IFIFO = 0010000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFREG = 0100000;

    private SpecialFiles() {
    }

    /** A character device with /dev/null's numbers (1, 3) at {@code p}; the test is skipped where mknod is refused. */
    public static Path charDevice(Path p) throws Exception {
        assumeTrue(run("mknod", p.toString(), "c", "1", "3") == 0, "mknod needs root");
        return p;
    }

    /** A FIFO at {@code p}; mkfifo is part of every Linux this runs on, so a failure fails the test. */
    public static Path fifo(Path p) throws Exception {
        if (run("mkfifo", p.toString()) != 0) {
            throw new IOException("mkfifo " + p + " failed");
        }
        return p;
    }

    /** The file type bits of {@code p} itself (a link is not followed). */
    public static int type(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT;
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
