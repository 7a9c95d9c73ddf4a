package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.collect;
import static io.rdmaflux.connector.TestSupport.randomBytes;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Real commands through {@link CommandFilter}. The witness of end of input is a command that
 * writes a file only after its stdin ended ({@code cat > part; touch done}); every test ends
 * with no process of its own left and every chunk of its input released.
 */
class CommandFilterTest {

    private static final Duration T = Duration.ofSeconds(60);
    private static final String WITNESS = "cat > part; touch done";
    private static final int CHUNK = Upstream.CHUNK;

    @TempDir
    Path dir;

    private final CommandTestSupport t = new CommandTestSupport();
    private final Upstream up = new Upstream();

    @AfterEach
    void nothingLeftBehind() {
        t.awaitNoneLeft();
        up.awaitReleased();
    }

    private CommandFilter shell(String command) {
        return CommandFilter.shell(command).withOptions(t.options(dir));
    }

    private Flux<Chunk> text(String s) {
        return TestSupport.chunksOf(s.getBytes(StandardCharsets.UTF_8), CHUNK, up.pool);
    }

    @Test
    void theStreamGoesThroughTheCommand() {
        byte[] data = randomBytes(5 * 1024 * 1024 + 77, 3);
        byte[] out = collect(shell("cat").apply(TestSupport.chunksOf(data, CHUNK, up.pool)));
        assertThat(sha256(out)).isEqualTo(sha256(data));

        assertThat(new String(collect(shell("tr '[:lower:]' '[:upper:]'").apply(text("hello\n"))),
                StandardCharsets.UTF_8)).isEqualTo("HELLO\n");
    }

    @Test
    void theCommandSeesEndOfInputAfterTheInputCompleted() {
        assertThat(collect(shell(WITNESS + "; echo finished").apply(up.chunks(20)))).asString().isEqualTo("finished\n");
        assertThat(dir.resolve("part")).hasSize(20L * CHUNK);
        assertThat(dir.resolve("done")).exists();
    }

    @Test
    void anInputThatFailsMidwayNeverGivesEndOfInputAndFailsTheOutputWithItsCode() {
        Flux<Chunk> failing = up.chunks(20).concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED,
                "stream cut short: connection lost")));
        assertThatThrownBy(() -> collect(shell(WITNESS).apply(failing)))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TRUNCATED))
                .hasMessage("stream cut short: connection lost");
        assertThat(dir.resolve("part")).exists();
        assertThat(dir.resolve("done")).doesNotExist();
    }

    /**
     * As {@code (exit 2) | (sleep 1; exit 4)} under pipefail: a command that ends on its own
     * after its input failed, with a status of its own, is the failure that counts.
     */
    @Test
    void aCommandThatFailsOnItsOwnAfterItsInputFailedGivesItsOwnStatus() {
        Flux<Chunk> failing = Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED, "sender reported: exit 2"));
        assertThatThrownBy(() -> collect(shell("sleep 0.5; exit 4").apply(failing)))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(4))
                .hasMessageStartingWith("command 'sleep 0.5; exit 4' exited with status 4");
        // One that ends well on its own still fails with the input's error: its input was cut.
        assertThatThrownBy(() -> collect(shell("sleep 0.5").apply(failing)))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TRUNCATED));
    }

    @Test
    void aNonZeroStatusFailsTheOutputAndCancelsTheInput() {
        assertThatThrownBy(() -> collect(shell("head -c 1000; echo 'bad input' >&2; exit 3").apply(up.chunks(10_000))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.IO);
                    assertThat(e.exitStatus()).hasValue(3);
                })
                .hasMessageStartingWith("command 'head -c 1000; echo 'bad input' >&2; exit 3' exited with status 3")
                .hasMessageEndingWith(": bad input");
        await("the input is cancelled", up.cancelled::get);
        assertThat(up.sent.get()).isLessThan(10_000L * CHUNK);
    }

    @Test
    void aCommandKilledByASignalFailsTheOutput() {
        assertThatThrownBy(() -> collect(shell("head -c 100 >/dev/null; kill -9 $$").apply(up.chunks(10_000))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(137))
                .hasMessageContaining("was killed by signal 9 (KILL)");
    }

    @Test
    void aCommandThatStopsReadingAndExitsZeroHasDoneItsWork() {
        byte[] out = collect(shell("head -c 1000").apply(up.chunks(10_000)));
        assertThat(out).hasSize(1000);
        await("the input is cancelled", up.cancelled::get);
        assertThat(up.sent.get()).isLessThan(10_000L * CHUNK);
    }

    @Test
    void aCommandThatReadsNothingGivesItsOutputAndTheInputIsCancelled() {
        assertThat(collect(shell("echo made without input").apply(up.chunks(Integer.MAX_VALUE))))
                .asString().isEqualTo("made without input\n");
        await("the input is cancelled", up.cancelled::get);
    }

    @Test
    void cancellingTheOutputStopsTheCommandWithoutEndOfInput() {
        Disposable running = shell("tee part; touch done").apply(up.chunks(Integer.MAX_VALUE))
                .doOnNext(Chunk::release).subscribe();
        await("data flowing", () -> up.sent.get() > 1024 * 1024);
        running.dispose();
        t.awaitNoneLeft();
        await("the input is cancelled", up.cancelled::get);
        assertThat(dir.resolve("done")).doesNotExist();
    }

    @Test
    void anotherShellRunsTheCommand() {
        CommandFilter bash = CommandFilter.shell("tee >(wc -c > count) >/dev/null; wait; echo $0")
                .withOptions(t.options(dir).withShell(Path.of("/bin/bash")));
        assertThat(collect(bash.apply(text("twelve bytes")))).asString().isEqualTo("bash\n");
    }

    @Test
    void aProgramThatIsNotFoundFailsTheOutput() {
        assertThatThrownBy(() -> collect(CommandFilter.of(List.of("rdflux-no-such-command")).withOptions(t.options(dir))
                .apply(up.chunks(3))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND))
                .hasMessage("cannot run command 'rdflux-no-such-command': rdflux-no-such-command: command not found");
    }

    /**
     * A substitution that writes to the output keeps it open, and so is waited for anyway; one
     * that does not may still finish its work after the command exited.
     */
    @Test
    void aProcessSubstitutionStillWorkingWhenTheCommandExitsMayFinish() {
        CommandFilter bash = CommandFilter.shell("tee >(exec > /dev/null; sleep 1; cat > copy)")
                .withOptions(t.options(dir).withShell(Path.of("/bin/bash")));
        assertThat(collect(bash.apply(text("hello\n")))).asString().isEqualTo("hello\n");
        assertThat(dir.resolve("copy")).hasContent("hello");
    }

    @Test
    void aProcessGroupStillRunningAfterTheLingerIsKilledAndFailsTheOutput() {
        CommandFilter filter = CommandFilter.shell("cat; sleep 30 > /dev/null &")
                .withOptions(t.options(dir).withLinger(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> collect(filter.apply(text("hello\n"))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.IO);
                    assertThat(e.exitStatus()).hasValue(0);
                })
                .hasMessage(CommandTestSupport.outlived("cat; sleep 30 > /dev/null &", "1 s"));
    }

    @Test
    void aBackgroundJobHoldingTheOutputOpenIsKilledAfterTheLingerAndFailsTheOutput() {
        // The sleep keeps the command's stdout open: without a bound, the read would wait for it.
        CommandFilter filter = CommandFilter.shell("cat; sleep 600 &")
                .withOptions(t.options(dir).withLinger(Duration.ofMillis(300)));
        assertThatThrownBy(() -> collect(filter.apply(text("hello\n"))))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(0))
                .hasMessage(CommandTestSupport.outlived("cat; sleep 600 &", "300 ms"));
    }

    /**
     * The command's stdin and stdout are pipes of a chunk (1 MiB), not the kernel's 64 KiB, so a
     * command in the middle of a stream moves a chunk per wake-up and its output comes back in
     * chunks that make whole frames. The command reports what it sees (F_GETPIPE_SZ is 1032).
     */
    @Test
    void theCommandsStdinAndStdoutArePipesOfAChunk() {
        String sizes = "perl -e 'print fcntl(STDIN, 1032, 0), \" \", fcntl(STDOUT, 1032, 0)'";
        byte[] out = collect(shell(sizes).apply(text("x")));
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(CommandProcess.PIPE_SIZE + " " + CommandProcess.PIPE_SIZE);
    }

}
