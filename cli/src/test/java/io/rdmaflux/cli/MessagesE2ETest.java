package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        remoteTool = RemoteRdflux.in(dir);
    }

    // ---- rdpipe's exit status, as `set -o pipefail`

    @Test
    void theRightmostFailingSegmentGivesTheStatus() {
        Result r = rdpipe("h1:exit 2", "h2:sleep 1; exit 4");
        assertThat(r.code).as(r.err).isEqualTo(4);
        assertThat(r.err).contains("segment 2 (h2:").contains("exited with status 4");
    }

    // ---- Ctrl-C: the message says interrupted, not a lost connection

    /**
     * A terminal's Ctrl-C reaches its whole foreground group, and ssh too where it shares the
     * terminal (a remote shell without setsid, or a wrapper that keeps it): here one kill(2)
     * call per target delivers it to rdcp's group and to its ssh processes at once, ssh
     * perhaps dying first. What the user did is what rdcp says.
     */
    @Test
    void ctrlCOnRdcpSaysInterruptedNotConnectionLost() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files2.random(src.resolve("big.bin"), 256L << 20, 5);
        Path remote = Files.createDirectories(dir.resolve("remote"));
        Tool t = Tool.group(dir, "exec " + Tool.launcher("rdcp") + remoteOptions() + " -r --frame-size 4K --slots 2 "
                + ShellWords.quote(src.toString()) + " " + ShellWords.quote("h2:" + remote.resolve("dst")),
                Map.of("RDFLUX_JAVA_OPTS", marker()));
        awaitBytesUnder(t, remote);
        ctrlC(t);
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(t.err()).doesNotContain("connection was lost").doesNotContain("ended without reporting");
        assertThat(t.err().strip().lines().toList()).last().isEqualTo("rdcp: interrupted by SIGINT");
    }

    @Test
    void ctrlCOnRdpipeSaysInterruptedNotConnectionLost() throws Exception {
        Path sink = dir.resolve("sink");
        Path empty = Files.createTempFile(dir, "stdin", "");
        Tool t = Tool.group(dir, "exec " + Tool.launcher("rdpipe") + remoteOptions() + " 'h1:cat /dev/zero' "
                + ShellWords.quote("h2:cat > " + ShellWords.quote(sink.toString())) + " < " + ShellWords.quote(empty.toString())
                + " > " + ShellWords.quote(dir.resolve("stdout").toString()), Map.of("RDFLUX_JAVA_OPTS", marker()));
        awaitBytesUnder(t, dir, sink);
        ctrlC(t);
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(t.err()).doesNotContain("connection was lost").doesNotContain("ended without reporting");
        assertThat(t.err().strip().lines().toList()).last().asString().startsWith("rdpipe: interrupted by SIGINT");
    }

    /** SIGINT to the tool's process group and to every ssh it runs, in one kill(1): as a terminal without setsid. */
    private static void ctrlC(Tool t) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("kill", "-s", "INT", "--", "-" + t.process.pid()));
        t.process.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/ssh")).orElse(false))
                .forEach(p -> cmd.add(Long.toString(p.pid())));
        assertThat(cmd).as("ssh processes to signal").hasSizeGreaterThan(5);
        Process k = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(k.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    /** Waits until a regular file under {@code root} (or {@code file} itself) holds bytes: mid-stream. */
    private static void awaitBytesUnder(Tool t, Path root, Path... file) {
        org.awaitility.Awaitility.await("bytes arriving").atMost(LIMIT).until(() -> {
            if (!t.process.isAlive()) {
                throw new AssertionError("ended early: " + t.err());
            }
            if (file.length > 0) {
                return Files.exists(file[0]) && Files.size(file[0]) > 1 << 20;
            }
            try (java.util.stream.Stream<Path> all = Files.walk(root)) {
                return all.anyMatch(p -> {
                    try {
                        return Files.isRegularFile(p) && Files.size(p) > 1 << 20;
                    } catch (IOException e) {
                        return false;
                    }
                });
            }
        });
    }

    // ---- a stream never goes to a terminal

    @Test
    void rdrecvRefusesToWriteTheStreamToATerminalAndSaysTheKeyWasLikelyForgotten() throws Exception {
        Tool t = inTerminal(Tool.launcher("rdrecv") + " 0 newfile.bin");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.USAGE);
        String said = Files.readString(dir.resolve("terminal.out"));
        assertThat(said).contains("rdrecv: stdout is a terminal; use a file or a pipe, or -f")
                .contains("did you forget the key? 'newfile.bin' was taken as KEY").doesNotContain("listening on");
        assertThat(dir.resolve("newfile.bin")).doesNotExist();

        // -f: written there anyway (here it only gets as far as listening, then times out).
        Tool forced = inTerminal(Tool.launcher("rdrecv") + " -f --timeout 1s 0 k");
        assertThat(forced.exitCode(LIMIT)).as(forced.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(Files.readString(dir.resolve("terminal.out"))).contains("listening on")
                .doesNotContain("stdout is a terminal");
    }

    /**
     * Runs {@code command} with a pseudo-terminal as its stdin, stdout and stderr
     * (util-linux script(1)); what the terminal showed goes to terminal.out, and script
     * returns the command's status.
     */
    private Tool inTerminal(String command) throws IOException {
        Files.deleteIfExists(dir.resolve("terminal.out"));
        ProcessBuilder.Redirect none = ProcessBuilder.Redirect.from(Files.createTempFile(dir, "stdin", "").toFile());
        List<String> cmd = List.of("script", "-q", "-e", "-c", command, dir.resolve("terminal.out").toString());
        return Tool.exec(dir, cmd, none, ProcessBuilder.Redirect.to(dir.resolve("script.stdout").toFile()),
                Map.of("RDFLUX_JAVA_OPTS", marker()));
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

    /** " -e RSH --rdflux-path TOOL", quoted for a shell. */
    private String remoteOptions() {
        return " -e " + ShellWords.quote(sshd.rsh()) + " --rdflux-path " + ShellWords.quote(ShellWords.quote(remoteTool.toString()));
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
