package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.await;
import static io.rdmaflux.connector.TestSupport.randomBytes;
import static io.rdmaflux.connector.TestSupport.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.publisher.TestPublisher;

/**
 * Real commands through {@link CommandSink}. The witness of end of input is a command that
 * writes a file only after its stdin ended: {@code cat > part; touch done}. Every test ends
 * with no process of its own left.
 */
class CommandSinkTest {

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

    private CommandSink shell(String command) {
        return CommandSink.shell(command).withOptions(t.options(dir));
    }

    /** {@code chunks} chunks, then the failure a channel reports when its sender died. */
    private Flux<Chunk> failingAfter(int chunks) {
        return up.chunks(chunks).concatWith(Flux.error(new RdmaFluxException(ErrorCode.TRUNCATED,
                "stream cut short: connection lost")));
    }

    @Test
    void aCompleteStreamGivesEndOfInputAndStatusZero() throws IOException {
        byte[] data = randomBytes(3 * 1024 * 1024 + 99, 8);
        SinkResult r = shell(WITNESS).write(TestSupport.chunksOf(data, CHUNK, up.pool)).block(T);

        assertThat(r.bytes()).isEqualTo(data.length);
        assertThat(r.exitStatus()).hasValue(0);
        assertThat(r.location()).isEqualTo("command '" + WITNESS + "'");
        assertThat(sha256(dir.resolve("part"))).isEqualTo(sha256(data));
        assertThat(dir.resolve("done")).exists();
    }

    @Test
    void aCommandThatBeginsWithADashIsRunAsACommandNeverAsTheShellsOption() {
        // "sh -c -s" would make the shell read its script from the stream it is given.
        byte[] script = "touch pwned\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> shell("-s").write(TestSupport.chunksOf(script, CHUNK, up.pool)).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> assertThat(e.exitStatus()).hasValue(127));
        assertThat(dir.resolve("pwned")).doesNotExist();
    }

    @Test
    void aNonZeroStatusAfterTheEndFailsTheSink() {
        assertThatThrownBy(() -> shell("cat > /dev/null; echo 'no space for you' >&2; exit 4")
                .write(up.chunks(5)).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.IO);
                    assertThat(e.exitStatus()).hasValue(4);
                })
                .hasMessage("command 'cat > /dev/null; echo 'no space for you' >&2; exit 4' exited with status 4 "
                        + "after the end of its input: no space for you");
    }

    @Test
    void aConsumerThatExitsEarlyFailsTheSinkWithItsStatusAndCancelsThePublisher() {
        assertThatThrownBy(() -> shell("head -c 1000 > /dev/null; echo 'seen enough' >&2").write(up.chunks(10_000)).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.BROKEN_PIPE);
                    assertThat(e.exitStatus()).hasValue(0);
                })
                .message().matches("command 'head -c 1000 > /dev/null; echo 'seen enough' >&2' exited with status 0 "
                        + "before the end of the stream \\(it stopped reading after \\d+ bytes\\): seen enough");
        // The sink reports its failure before it cancels upstream (so the peer hears its reason).
        await("the publisher is cancelled", up.cancelled::get);
        assertThat(up.sent.get()).isLessThan(10_000L * CHUNK);
    }

    @Test
    void aStreamThatFailsMidwayNeverGivesEndOfInput() {
        // The failure comes once the command runs (its pipe of a chunk may hold all 20 chunks
        // before it starts), so that it is the command that never sees the end of its input.
        Flux<Chunk> failingOnceRunning = up.chunks(20)
                .concatWith(Mono.fromRunnable(() -> await("the command runs", () -> Files.exists(dir.resolve("part"))))
                        .subscribeOn(Schedulers.boundedElastic()).then(Mono.<Chunk>error(new RdmaFluxException(ErrorCode.TRUNCATED,
                                "stream cut short: connection lost"))));
        assertThatThrownBy(() -> shell(WITNESS).write(failingOnceRunning).block(T))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TRUNCATED))
                .hasMessage("stream cut short: connection lost; command '" + WITNESS + "' was stopped with SIGTERM "
                        + "and never saw the end of its input");
        assertThat(dir.resolve("part")).exists();
        assertThat(dir.resolve("done")).doesNotExist();
    }

    @Test
    void aStreamThatFailsAtOnceNeverGivesEndOfInput() {
        assertThatThrownBy(() -> shell(WITNESS).write(failingAfter(0)).block(T))
                .hasMessageStartingWith("stream cut short: connection lost; command '" + WITNESS + "' was stopped");
        assertThat(dir.resolve("done")).doesNotExist();
    }

    @Test
    void aCancelledStreamNeverGivesEndOfInput() {
        Disposable writing = shell(WITNESS).write(up.chunks(Integer.MAX_VALUE)).subscribe();
        await("data flowing", () -> up.sent.get() > 1024 * 1024);
        assertThat(t.processes()).as("the command and its guard, found by their marker").hasSizeGreaterThanOrEqualTo(2);
        writing.dispose();

        t.awaitNoneLeft();
        // The sink reports its failure before it cancels upstream (so the peer hears its reason).
        await("the publisher is cancelled", up.cancelled::get);
        assertThat(dir.resolve("done")).doesNotExist();
    }

    @Test
    void aStreamThatFailsWhileAWriteIsBlockedStopsTheCommand() {
        // The command reads nothing, so once its pipe is full (a chunk of 1 MiB, or 64 KiB
        // without perl: CommandProcess.PIPE_SIZE) our next write waits on it when the failure
        // comes; only an interrupt from outside the write loop can end that wait.
        TestPublisher<Chunk> channel = TestPublisher.create();
        AtomicLong requested = new AtomicLong();
        CompletableFuture<SinkResult> result = shell("sleep 600; " + WITNESS)
                .write(channel.flux().doOnRequest(requested::addAndGet)).toFuture();
        await("initial demand", () -> requested.get() >= 4);
        long initial = requested.get();
        for (int i = 1; i <= CommandProcess.PIPE_SIZE / CHUNK + 1; i++) {
            channel.next(up.chunks(1).blockFirst(T));
            long written = initial + i;
            await("chunk written or a write blocked", () -> requested.get() >= written || aWriteIsBlocked());
            if (aWriteIsBlocked()) {
                break;
            }
        }
        await("a write blocked", CommandSinkTest::aWriteIsBlocked);
        channel.error(new RdmaFluxException(ErrorCode.TRUNCATED, "stream cut short: connection lost"));

        assertThat(result).failsWithin(T).withThrowableThat().havingCause()
                .withMessage("stream cut short: connection lost; command 'sleep 600; " + WITNESS
                        + "' was stopped with SIGTERM and never saw the end of its input");
        assertThat(dir.resolve("done")).doesNotExist();
    }

    /** Whether some thread waits in a write to a pipe (only this test's sink writes one). */
    private static boolean aWriteIsBlocked() {
        return Thread.getAllStackTraces().values().stream().anyMatch(stack -> stack.length > 0
                && stack[0].getClassName().equals("sun.nio.ch.FileDispatcherImpl")
                && stack[0].getMethodName().equals("write0"));
    }

    @Test
    void aConsumerThatIgnoresSigtermIsKilledAfterTheGrace() throws IOException {
        // The first shell notes SIGTERM and carries on, armed before the stream fails; the
        // witness ignores it. (A background job's stdin is /dev/null unless redirected: fd 3.)
        String command = "trap 'echo TERM >> signals' TERM; exec 3<&0; (trap '' TERM; " + WITNESS + ") <&3 & "
                + "echo > armed; while :; do sleep 1; done";
        CommandTestSupport.GraceRecorder grace = new CommandTestSupport.GraceRecorder(dir.resolve("signals"));
        CommandSink sink = CommandSink.shell(command)
                .withOptions(t.options(dir).withGrace(Duration.ofMillis(500))).withGraceWait(grace);
        Flux<Chunk> armedThenLost = up.chunks(20).concatWith(Mono.fromRunnable(
                        () -> await("the command's trap", () -> Files.exists(dir.resolve("armed"))))
                .subscribeOn(Schedulers.boundedElastic()).then(Mono.<Chunk>error(new RdmaFluxException(ErrorCode.TRUNCATED,
                        "stream cut short: connection lost"))));
        assertThatThrownBy(() -> sink.write(armedThenLost).block(T))
                .hasMessage("stream cut short: connection lost; command '" + command
                        + "' was killed with SIGKILL, having ignored SIGTERM for 500 ms and never saw the end of its input");
        assertThat(dir.resolve("done")).doesNotExist();
        assertThat(Files.readString(dir.resolve("signals"))).as("SIGTERM came first, and only once").isEqualTo("TERM\n");
        assertThat(grace.graces).as("the grace it was given").containsExactly(Duration.ofMillis(500));
        assertThat(grace.exitedWithin).as("it outlived the grace, so SIGKILL followed").containsExactly(false);
    }

    @Test
    void aProgramThatIsNotFoundFailsTheSinkAndCancelsThePublisher() {
        CommandSink sink = CommandSink.of(List.of("rdflux-no-such-command")).withOptions(t.options(dir));
        assertThatThrownBy(() -> sink.write(up.chunks(3)).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND);
                })
                .hasMessage("cannot run command 'rdflux-no-such-command': rdflux-no-such-command: command not found");
        // The sink reports its failure before it cancels upstream (so the peer hears its reason).
        await("the publisher is cancelled", up.cancelled::get);
    }

    @Test
    void itsStdoutAndStderrAreDrainedPrefixedAndTheArgumentVectorIsQuoted() throws IOException {
        CommandSink sink = CommandSink.of(List.of("sh", "-c", "wc -c; echo 'to stderr' >&2", "it's me"))
                .withOptions(t.options(dir).withName("counter"));
        SinkResult r = sink.write(up.chunks(4)).block(T);

        assertThat(r.location()).isEqualTo("command 'sh -c 'wc -c; echo '\\''to stderr'\\'' >&2' 'it'\\''s me''");
        assertThat(t.stderr).containsExactly("[counter] " + 4 * CHUNK, "[counter] to stderr");
        assertThat(TestSupport.list(dir)).isEmpty();
    }

    /** As bash alone does (and ssh, which waits for the end of its output), the substitution may finish its work. */
    @Test
    void aProcessSubstitutionStillWorkingWhenTheCommandExitsMayFinish() {
        CommandSink sink = CommandSink.shell("tee >(sleep 1; cat > copy) > /dev/null")
                .withOptions(t.options(dir).withShell(Path.of("/bin/bash")));
        byte[] hello = "hello\n".getBytes(StandardCharsets.UTF_8);
        SinkResult r = sink.write(TestSupport.chunksOf(hello, CHUNK, up.pool)).block(T);

        assertThat(r.exitStatus()).hasValue(0);
        assertThat(dir.resolve("copy")).hasContent("hello");
    }

    @Test
    void aProcessGroupStillRunningAfterTheLingerIsKilledAndFailsTheSink() {
        CommandSink sink = CommandSink.shell("cat > part; sleep 30 &")
                .withOptions(t.options(dir).withLinger(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> sink.write(up.chunks(3)).block(T))
                .isInstanceOfSatisfying(ConnectorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
                    assertThat(e.reason()).isEqualTo(Reason.IO);
                    assertThat(e.exitStatus()).hasValue(0);
                })
                .hasMessage(CommandTestSupport.outlived("cat > part; sleep 30 &", "1 s"));
        assertThat(dir.resolve("part")).hasSize(3L * CHUNK);
    }

    @Test
    void cancellingDuringTheLingerKillsTheGroupAtOnce() {
        Disposable writing = shell("cat > part; sleep 30 &").write(up.chunks(3)).subscribe();
        await("the command exited, its background sleep and the guard still running",
                () -> dir.resolve("part").toFile().length() == 3L * CHUNK && t.processes().size() == 2);
        writing.dispose();
        // @AfterEach: nothing left, long before the default linger (60 s) would have run out.
    }

    /** A sink command's stdin is a pipe of a chunk (1 MiB), not the kernel's 64 KiB (F_GETPIPE_SZ is 1032). */
    @Test
    void theCommandsStdinIsAPipeOfAChunk() throws IOException {
        SinkResult r = shell("perl -e 'print fcntl(STDIN, 1032, 0)' > size; cat > rest")
                .write(TestSupport.chunksOf("x".getBytes(StandardCharsets.UTF_8), CHUNK, up.pool)).block(T);
        assertThat(r.exitStatus()).hasValue(0);
        assertThat(Files.readString(dir.resolve("size"))).isEqualTo(Integer.toString(CommandProcess.PIPE_SIZE));
    }

}
