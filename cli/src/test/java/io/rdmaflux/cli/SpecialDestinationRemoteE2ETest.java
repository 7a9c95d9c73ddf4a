package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static io.rdmaflux.testing.SpecialFiles.S_IFCHR;
import static io.rdmaflux.testing.SpecialFiles.charDevice;
import static io.rdmaflux.testing.SpecialFiles.type;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * rdma-pipe's first example, {@code rdcp -v big_file host:/dev/null}, against the loopback sshd
 * (hosts h1, h2), on a character device with /dev/null's numbers made with mknod in the test's
 * directory, never the system's own: the remote end writes through it and it stays a device.
 * The rule is in docs/tree-format.md; {@link SpecialDestinationE2ETest} has the local cases.
 */
class SpecialDestinationRemoteE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private Path tool;
    private Path src;

    @BeforeEach
    void setUp() throws IOException {
        tool = RemoteRdflux.in(dir);
        src = Files2.random(dir.resolve("big_file"), 3 * 1024 * 1024 + 17, 22);
    }

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @Test
    void pushToARemoteDeviceWritesThroughIt() throws Exception {
        Path dev = charDevice(dir.resolve("null"));
        Tool t = rdcp("-v", src.toString(), "h1:" + dev);
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void syncToARemoteDeviceWritesThroughIt() throws Exception {
        Path dev = charDevice(dir.resolve("null"));
        Tool t = rdcp("--sync", src.toString(), "h2:" + dev);
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(type(dev)).isEqualTo(S_IFCHR);
        assertThat(leftovers()).isEmpty();
    }

    private Tool rdcp(String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_JAVA_OPTS", marker()), all.toArray(String[]::new));
    }

    /** Temporary or partial files left in the test's directory. */
    private List<Path> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    private String marker() {
        return "-Drdflux.test.marker=" + dir;
    }
}
