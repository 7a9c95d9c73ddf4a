package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Signals and sudden deaths in the middle of a stream, with real processes: nothing is ever
 * committed on the receiver but a stream that ended with a verified END, each side exits with
 * the documented code, and the partial file goes away. No timing is asserted; every wait is
 * bounded.
 */
class InterruptE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void ctrlCOnAProducerPipelineCommitsNothing() throws Exception {
        assumeTrue(onPath("pv"), "pv is not installed (.ci/run installs it)");
        Path in = Files2.random(dir.resolve("in.bin"), 32L << 20, 31);
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
        int port = r.listeningPort();
        // As in a terminal: Ctrl-C reaches cat, pv and rdsend at once, and cat's death ends
        // rdsend's input. The braces keep rdsend's own status: the trap lets that subshell
        // outlive the signal, and a trapped signal is reset to the default in rdsend.
        Tool job = Tool.group(dir, "cat " + in + " | pv -q -L 2m | { trap : INT TERM; "
                + Tool.launcher("rdsend") + " 127.0.0.1 " + port + " k 2> send.err; echo $? > send.status; }", Map.of());
        await("the receiver writing").atMost(LIMIT).until(() -> writing("out.bin"));
        job.signalGroup("INT");
        job.exitCode(LIMIT);

        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(r.messages()).contains("sender reported: sender interrupted by SIGINT").hasLineCount(1);
        assertThat(Files.readString(dir.resolve("send.status")).trim()).as("rdsend's status; stderr: %s",
                Files.readString(dir.resolve("send.err"))).isEqualTo(Integer.toString(ExitCode.INTERRUPTED));
        assertThat(Files.readString(dir.resolve("send.err"))).contains("interrupted by SIGINT");
        assertThat(out).as("a cut file must not be committed").doesNotExist();
        assertNoPartialFiles("out.bin");
    }

    /**
     * Sent twice in an instant, a signal is still one: a Ctrl-C can reach a tool both through
     * the process group and forwarded by a parent (timeout(1)), and that second one must not end
     * the tool before its clean-up, as an impatient second Ctrl-C does.
     */
    @ParameterizedTest(name = "SIG{0} x{1}")
    @CsvSource({"INT, 1, 130", "TERM, 1, 143", "HUP, 1, 129", "INT, 2, 130"})
    void aSignalToTheReceiverCancelsTheStreamAndTellsTheSender(String signal, int times, int status) throws Exception {
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", Integer.toString(port), "k");
        feedUntilWritten(s, "out.bin", () -> {
            for (int i = 0; i < times; i++) {
                r.signal(signal);
            }
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(status);
        });
        assertThat(r.messages()).contains("receiver interrupted by SIG" + signal).contains("partial file removed")
                .hasLineCount(1);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(s.err()).contains("receiver reported: receiver interrupted by SIG" + signal).hasLineCount(1);
        assertThat(out).doesNotExist();
        assertNoPartialFiles("out.bin");
    }

    @Test
    void aSignalToAReceiverStillWaitingEndsItAtOnce() throws Exception {
        Tool r = Tool.start(dir, "rdrecv", "0", "k", dir.resolve("out.bin").toString());
        await("rdrecv listening").atMost(LIMIT).untilAsserted(() -> assertThat(r.err()).contains("listening on"));
        r.signal("INT");
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(r.messages().lines().toList()).last().isEqualTo("rdrecv: interrupted by SIGINT");
    }

    @Test
    void aKilledReceiversPartialFileIsRemovedByTheNextRun() throws Exception {
        Path out = dir.resolve("out.bin");
        Tool r = Tool.start(dir, "rdrecv", "0", "k", out.toString());
        int port = r.listeningPort();
        Tool s = Tool.start(dir, "rdsend", "127.0.0.1", Integer.toString(port), "k");
        feedUntilWritten(s, "out.bin", () -> r.signal("KILL"));
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(s.err()).contains("receiver").containsIgnoringCase("connection").hasLineCount(1);
        r.exitCode(LIMIT);
        List<Path> left = partialFiles("out.bin");
        assertThat(left).as("kill -9 leaves the partial file").hasSize(1);

        Path in = Files2.random(dir.resolve("in.bin"), 100_000, 32);
        Tool again = Tool.start(dir, "rdrecv", "-v", Integer.toString(port), "k", out.toString());
        Tool resend = Tool.start(dir, "rdsend", "127.0.0.1", Integer.toString(port), "k", in.toString());
        assertThat(resend.exitCode(LIMIT)).as("rdsend: %s", resend.err()).isZero();
        assertThat(again.exitCode(LIMIT)).as("rdrecv: %s", again.err()).isZero();
        assertThat(again.err()).contains("removed " + left.get(0) + ", a partial file left by process "
                + r.process.pid() + ", which ended without finishing it");
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(partialFiles("out.bin")).isEmpty();
    }

    private static boolean onPath(String program) {
        return Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }

    /**
     * Feeds rdsend's standard input until the receiver is writing {@code name}, runs
     * {@code midStream}, then feeds on until rdsend stops reading.
     */
    private void feedUntilWritten(Tool sender, String name, Runnable midStream) throws Exception {
        try (OutputStream feed = sender.process.getOutputStream()) {
            Files2.random(feed, 8 << 20);
            feed.flush();
            await("the receiver writing").atMost(LIMIT).until(() -> writing(name));
            midStream.run();
            Files2.random(feed, 8 << 20);
        } catch (IOException expectedOnceFailed) {
            // rdsend stops reading its input once the stream failed.
        }
    }

    /** Whether the receiver has written to its temporary file. */
    private boolean writing(String name) throws IOException {
        return partialFiles(name).stream().anyMatch(p -> p.toFile().length() > 0);
    }

    private List<Path> partialFiles(String name) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("." + name + ".rdflux-")).toList();
        }
    }

    private void assertNoPartialFiles(String name) throws IOException {
        assertThat(partialFiles(name)).isEmpty();
    }
}
