package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/rdflux-askpass}, which the ssh of a call served by a standby JVM runs to ask on the
 * caller's terminal (docs/remote.md, "The standby JVM"): on a real pseudo-terminal (script(1))
 * it prompts there, reads the answer with echo off and prints it on stdout; a yes/no question
 * echoes; the end of input and a missing terminal are a non-zero exit.
 */
class AskpassE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir);

    /** What the terminal showed (script's output) and what askpass printed on stdout, after typing {@code input} at the prompt. */
    private record Asked(String terminal, String answer) {
    }

    private Asked ask(String prompt, String input, Map<String, String> env) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "no script(1) here");
        Path out = dir.resolve("answer");
        String inner = "RDFLUX_ASKPASS_TTY=$(tty) " + Tool.launcher("rdflux-askpass") + " '" + prompt + "' > " + out
                + "; echo rc=$?";
        ProcessBuilder pb = new ProcessBuilder(List.of("/usr/bin/script", "-qec", inner, "/dev/null"))
                .directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("RDFLUX_TEST_MARK", dir.toString());
        Process p = pb.start();
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(p.getInputStream(), shown));
        reader.start();
        try (OutputStream keys = p.getOutputStream()) {
            // Typed once the prompt is there: the echo is off by then.
            await("the prompt").atMost(LIMIT).until(() -> text(shown).contains(prompt));
            keys.write(input.getBytes(StandardCharsets.UTF_8));
            keys.flush();
            await("askpass's end").atMost(LIMIT).until(() -> text(shown).contains("rc="));
        } finally {
            p.destroy();
            p.waitFor();
            reader.join(LIMIT.toMillis());
        }
        return new Asked(text(shown), Files.exists(out) ? Files.readString(out) : "");
    }

    private static void copy(InputStream in, ByteArrayOutputStream to) {
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (to) {
                    to.write(buf, 0, n);
                }
            }
        } catch (IOException closed) {
            // script ended
        }
    }

    private static String text(ByteArrayOutputStream b) {
        synchronized (b) {
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aPasswordIsReadOnTheTerminalWithoutEchoAndPrintedOnStdout() throws Exception {
        Asked a = ask("Password for h1: ", "s3cret\n", Map.of());
        assertThat(a.answer()).isEqualTo("s3cret\n");
        assertThat(a.terminal()).contains("Password for h1: ").contains("rc=0").doesNotContain("s3cret");
    }

    @Test
    void aYesNoQuestionEchoesTheAnswer() throws Exception {
        Asked a = ask("Are you sure you want to continue connecting (yes/no/[fingerprint])? ", "yes\n", Map.of());
        assertThat(a.answer()).isEqualTo("yes\n");
        assertThat(a.terminal()).contains("? yes").contains("rc=0");
    }

    @Test
    void theEndOfInputIsANonZeroExit() throws Exception {
        Asked a = ask("Password: ", "\u0004", Map.of());   // Ctrl-D at the start of a line
        assertThat(a.answer()).isEmpty();
        assertThat(a.terminal()).contains("rc=1");
    }

    @Test
    void noTerminalIsOneLineAndANonZeroExit() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Tool.launcher("rdflux-askpass"), "Password: ").directory(dir.toFile());
        pb.environment().remove("RDFLUX_ASKPASS_TTY");
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(p.getInputStream().readAllBytes()).isEmpty();
        assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("rdflux-askpass: no terminal to ask on (RDFLUX_ASKPASS_TTY='')\n");
    }
}
