package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What rdpipe and rdcp say and exit with, over a real OpenSSH server on 127.0.0.1/.2/.3 (hosts
 * h1, h2, h3) whose remote tool is this build's {@code bin/rdflux}: pipefail's status, and the
 * message after Ctrl-C. Every process of a test carries its directory in its command line or
 * environment, so "nothing left running" looks at those only.
 */
class MessagesE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private Path remoteTool;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void wrapper() throws IOException {
        remoteTool = dir.resolve("rdflux on remote");
        Files.writeString(remoteTool, "#!/bin/sh\n"
                + "export JAVA_HOME=" + ShellWords.quote(System.getProperty("java.home")) + "\n"
                + "export RDFLUX_JAVA_OPTS=" + ShellWords.quote(marker()) + "\n"
                + "exec " + ShellWords.quote(Tool.HOME.resolve("bin/rdflux").toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(remoteTool, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    // ---- rdpipe's exit status, as `set -o pipefail`

    @Test
    void theRightmostFailingSegmentGivesTheStatus() {
        Result r = rdpipe("h1:exit 2", "h2:sleep 1; exit 4");
        assertThat(r.code).as(r.err).isEqualTo(4);
        assertThat(r.err).contains("segment 2 (h2:").contains("exited with status 4");
    }

    private record Result(int code, String out, String err) {
    }

    /** Runs bin/rdpipe with empty stdin, its stdout to a file. */
    private Result rdpipe(String... args) {
        try {
            Path in = Files.createTempFile(dir, "stdin", "");
            Path out = dir.resolve("stdout-" + System.nanoTime());
            Tool t = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.from(in.toFile()),
                    ProcessBuilder.Redirect.to(out.toFile()), Map.of("RDFLUX_JAVA_OPTS", marker()), withRemote(args));
            int code = t.exitCode(LIMIT);
            return new Result(code, Files.readString(out, StandardCharsets.UTF_8), t.err());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String[] withRemote(String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(remoteTool.toString())));
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private String marker() {
        return "-Drdflux.test.marker=" + dir;
    }
}
