package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A detached process holds none of its starter's streams: its fds 0, 1 and 2 are /dev/null. */
class DetachedTest {

    @Test
    void itsStandardStreamsAreDevNull() throws Exception {
        Process p = Detached.start(new ProcessBuilder("sleep", "60"));
        try {
            for (int fd = 0; fd <= 2; fd++) {
                assertThat(Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "fd", Integer.toString(fd))))
                        .as("fd " + fd).isEqualTo(Path.of("/dev/null"));
            }
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
