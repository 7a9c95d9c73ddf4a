package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.connector.StandardStreams;
import io.rdmaflux.testing.SpecialFiles;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' checks of their standard streams follow {@link StandardStreams}, as a call a standby
 * JVM serves needs (its streams are its client's): the terminal check, the stdin pipe check,
 * and Console's stderr. The paths given are real files made here (a symbolic link that names a
 * pty, a FIFO), never a device of this machine.
 */
class CallStreamsTest {

    @TempDir
    Path dir;

    private final PrintStream savedErr = System.err;

    @AfterEach
    void ownStreamsAgain() {
        StandardStreams.reset();
        System.setErr(savedErr);
        Console.useCallStreams();
    }

    private static void streams(Path in, Path out) {
        StandardStreams.use(FileDescriptor.in, FileDescriptor.out, FileDescriptor.err, in, out, Path.of("/proc/self/fd/2"));
    }

    @Test
    void terminalChecksTheHoldersDescriptors() throws Exception {
        // What /proc/PID/fd/1 of a client on a terminal is: a link to its pty.
        Path pty = Files.createSymbolicLink(dir.resolve("fd1"), Path.of("/dev/pts/7"));
        Path file = Files.createSymbolicLink(dir.resolve("fd0"), dir.resolve("data.bin"));
        streams(file, pty);
        assertThat(Terminal.isStdout()).isTrue();
        assertThat(Terminal.isStdin()).isFalse();
        streams(pty, file);
        assertThat(Terminal.isStdout()).isFalse();
        assertThat(Terminal.isStdin()).isTrue();
    }

    @Test
    void theStdinPipeCheckLooksAtTheHoldersStdin() throws Exception {
        Path fifo = SpecialFiles.fifo(dir.resolve("fifo"));
        Path file = Files.writeString(dir.resolve("file"), "data");
        streams(file, file);
        assertThat(Signals.inputIsPipe(null)).isFalse();
        assertThat(Signals.inputIsPipe("-")).isFalse();
        streams(fifo, file);
        assertThat(Signals.inputIsPipe(null)).isTrue();
    }

    @Test
    void consoleTakesTheCallsStderr() {
        // Loaded first, as a standby's warm-up loads it, while System.err is still the process's own.
        assertThat(Console.stderr()).isNotNull();
        ByteArrayOutputStream call = new ByteArrayOutputStream();
        System.setErr(new PrintStream(call, true, StandardCharsets.UTF_8));
        Console.useCallStreams();
        Console.info("to the call's stderr");
        assertThat(call.toString(StandardCharsets.UTF_8)).contains("to the call's stderr");
    }
}
