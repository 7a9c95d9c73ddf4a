package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.collect;
import static io.rdmaflux.connector.TestSupport.randomFile;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real commands through {@link CommandSource}; every test ends with no process of its own left. */
class CommandSourceTest {

    @TempDir
    Path dir;

    private final CommandTestSupport t = new CommandTestSupport();

    @AfterEach
    void nothingLeftBehind() {
        t.awaitNoneLeft();
    }

    private CommandSource shell(String command) {
        return CommandSource.shell(command).withOptions(t.options(dir));
    }

    @Test
    void emitsTheOutputAndCompletesOnStatusZero() throws IOException {
        Path data = randomFile(dir, "data", 5 * 1024 * 1024 + 321, 1);
        BufferPool pool = new BufferPool("command", 1 << 16, 4);
        CommandSource source = shell("cat data").withOptions(SourceOptions.defaults().withPool(pool));

        assertThat(sha256(collect(source.open()))).isEqualTo(sha256(data));
        assertThat(pool.outstanding()).isZero();
        assertThat(source.describe()).isEqualTo("cat data");
    }

    @Test
    void aProducerThatExitsWithStatus3FailsTheStreamEvenAfterAllItsBytes() throws IOException {
        randomFile(dir, "data", 300_000, 2);
        AtomicLong bytes = new AtomicLong();
        CommandSource source = shell("cat data; echo 'first complaint' >&2; echo 'disk on fire' >&2; exit 3");

        assertThatThrownBy(() -> collect(source.open().doOnNext(c -> bytes.addAndGet(c.remaining()))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.IO);
                    assertThat(e.exitStatus()).hasValue(3);
                })
                .hasMessage("command 'cat data; echo 'first complaint' >&2; echo 'disk on fire' >&2; exit 3' "
                        + "exited with status 3: first complaint / disk on fire");
        assertThat(bytes.get()).isEqualTo(300_000);
    }

    @Test
    void aProducerKilledBySigkillFailsTheStream() {
        CommandSource source = shell("head -c 100000 /dev/zero; echo dying >&2; kill -9 $$");

        assertThatThrownBy(() -> collect(source.open()))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(137))
                .hasMessageEndingWith("was killed by signal 9 (KILL): dying");
    }

    @Test
    void noOutputAndStatusZeroIsAnEmptyStream() {
        assertThat(collect(CommandSource.of(List.of("true")).withOptions(t.options(dir)).open())).isEmpty();
        assertThat(collect(shell("exit 0").open())).isEmpty();
    }

    @Test
    void stdinIsDevNullUnlessAFileIsGiven() throws IOException {
        // With an inherited or open stdin, cat would wait for input forever.
        assertThat(collect(shell("cat").open())).isEmpty();
        Path in = randomFile(dir, "in", 70_000, 3);
        assertThat(collect(shell("cat").withInput(in).open())).isEqualTo(Files.readAllBytes(in));
    }

    @Test
    void heavyStderrIsPassedOnSanitizedAndPrefixedAndNeverMixedIntoTheData() throws IOException {
        Path data = randomFile(dir, "data", 3 * 1024 * 1024, 4);
        // 8 MiB of binary noise and one 32 MiB line on stderr, while the data goes to stdout.
        CommandSource source = shell("{ head -c 8388608 /dev/urandom; echo; "
                + "head -c 33554432 /dev/zero | tr '\\0' x; echo; } >&2 & cat data; wait");

        assertThat(sha256(collect(source.open()))).isEqualTo(sha256(data));
        assertThat(t.stderr).hasSizeGreaterThan(1000);
        // Checked one by one: a failure message listing 30000 lines would not fit the heap.
        assertThat(t.stderr.stream().filter(line -> !line.startsWith("[head] ")
                || line.length() > "[head] ".length() + StderrDrain.MAX_LINE + 1
                || line.chars().anyMatch(c -> c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))).limit(3))
                .isEmpty();
        // The long line arrived once, cut, so it was never held whole.
        assertThat(t.stderr).filteredOn(l -> l.startsWith("[head] xxxx")).singleElement()
                .isEqualTo("[head] " + "x".repeat(StderrDrain.MAX_LINE) + "\u2026");
    }

    @Test
    void stderrGoesToStandardErrorByDefault() {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CommandSource source = CommandSource.shell("printf 'plain\\n\\033[31mred\\033[0m\\n' >&2")
                    .withOptions(CommandOptions.defaults().withEnvironment(CommandTestSupport.MARK, t.mark));
            assertThat(collect(source.open())).isEmpty();
        } finally {
            System.setErr(saved);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8).lines())
                // A whole escape sequence is one '?', as in every text from elsewhere (RemoteText).
                .contains("[printf] plain", "[printf] ?red?");
    }

    @Test
    void aProgramThatIsNotFoundFailsBeforeAnythingRuns() {
        CommandSource source = CommandSource.of(List.of("rdflux-no-such-command", "--flag")).withOptions(t.options(dir));
        assertThatThrownBy(() -> collect(source.open()))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND);
                })
                .hasMessage("cannot run command 'rdflux-no-such-command --flag': rdflux-no-such-command: command not found");
    }

    @Test
    void aShellCommandThatIsNotFoundFailsWithStatus127() {
        assertThatThrownBy(() -> collect(shell("rdflux-no-such-command").open()))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(127))
                .hasMessage("command 'rdflux-no-such-command' exited with status 127 (command not found): "
                        + "sh: 1: rdflux-no-such-command: not found");
    }

    @Test
    void cancelKillsTheWholeGroup() {
        // yes never ends; the sleep in the same group would outlive a kill of the shell alone.
        List<Chunk> first = shell("sleep 600 & yes").open().take(3).collectList().block(Duration.ofSeconds(60));
        assertThat(first).hasSize(3);
        first.forEach(Chunk::release);
        // @AfterEach: nothing left.
    }

    @Test
    void cancelKillsAGroupThatIgnoresSigtermAfterTheGrace() throws IOException {
        // The shell notes SIGTERM and carries on; the sleep ignores it. Output means the trap is set.
        CommandTestSupport.GraceRecorder grace = new CommandTestSupport.GraceRecorder(dir.resolve("signals"));
        CommandSource source = CommandSource.shell("trap 'echo TERM >> signals' TERM; (trap '' TERM; exec sleep 600) & "
                        + "yes & while :; do sleep 1; done")
                .withOptions(t.options(dir).withGrace(Duration.ofMillis(300))).withGraceWait(grace);
        source.open().take(2).doOnNext(Chunk::release).blockLast(Duration.ofSeconds(60));
        // The cancel stops the command on the source's scheduler, after blockLast returned.
        TestSupport.await("the end of the grace", () -> !grace.exitedWithin.isEmpty());

        assertThat(Files.readString(dir.resolve("signals"))).as("SIGTERM came first, and only once").isEqualTo("TERM\n");
        assertThat(grace.graces).as("the grace it was given").containsExactly(Duration.ofMillis(300));
        assertThat(grace.exitedWithin).as("it outlived the grace, so SIGKILL followed").containsExactly(false);
        // @AfterEach: SIGKILL ended the whole group.
    }

    @Test
    void whatACommandLeavesRunningInItsGroupAfterTheLingerIsKilledAndFailsTheStream() {
        CommandSource source = shell("sleep 600 >/dev/null 2>&1 & echo hi")
                .withOptions(t.options(dir).withLinger(Duration.ofMillis(300)));
        AtomicLong bytes = new AtomicLong();
        assertThatThrownBy(() -> collect(source.open().doOnNext(c -> bytes.addAndGet(c.remaining()))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.exitStatus()).hasValue(0);
                })
                .hasMessage(CommandTestSupport.outlived("sleep 600 >/dev/null 2>&1 & echo hi", "300 ms"));
        assertThat(bytes).hasValue(3);
    }

    @Test
    void aBackgroundJobHoldingTheOutputOpenIsKilledAfterTheLingerAndFailsTheStream() {
        // The sleep keeps the command's stdout open: without a bound, the read would wait for it.
        CommandSource source = shell("sleep 600 & echo hi").withOptions(t.options(dir).withLinger(Duration.ofMillis(300)));
        AtomicLong bytes = new AtomicLong();
        assertThatThrownBy(() -> collect(source.open().doOnNext(c -> bytes.addAndGet(c.remaining()))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(0))
                .hasMessage(CommandTestSupport.outlived("sleep 600 & echo hi", "300 ms"));
        assertThat(bytes).hasValue(3);
        // @AfterEach: the sleep was killed with the group.
    }

    @Test
    void aFailedCommandWhoseBackgroundJobHoldsTheOutputOpenFailsWithItsStatusAfterTheLinger() {
        CommandSource source = shell("sleep 600 & echo hi; exit 3").withOptions(t.options(dir).withLinger(Duration.ofMillis(300)));
        assertThatThrownBy(() -> collect(source.open()))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(3))
                .hasMessage("command 'sleep 600 & echo hi; exit 3' exited with status 3");
    }

    @Test
    void whatACommandLeavesRunningInItsGroupMayFinishWithinTheLinger() {
        assertThat(collect(shell("(sleep 1; echo late > late) >/dev/null 2>&1 & echo hi").open()))
                .isEqualTo("hi\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(dir.resolve("late")).hasContent("late");
    }

    @Test
    void aMissingWorkingDirectoryOrInputIsOneLine() {
        assertThatThrownBy(() -> collect(CommandSource.shell("true").withOptions(t.options(dir.resolve("nope"))).open()))
                .hasMessage("cannot run command 'true': working directory " + dir.resolve("nope") + " does not exist");
        assertThatThrownBy(() -> collect(shell("cat").withInput(dir.resolve("missing")).open()))
                .hasMessage("cannot run command 'cat': its input " + dir.resolve("missing") + " cannot be read");
    }

    /** A source command's stdout is a pipe of a chunk (1 MiB), not the kernel's 64 KiB (F_GETPIPE_SZ is 1032). */
    @Test
    void theCommandsStdoutIsAPipeOfAChunk() {
        byte[] out = collect(shell("perl -e 'print fcntl(STDOUT, 1032, 0)'").open());
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(Integer.toString(CommandProcess.PIPE_SIZE));
    }

}
