package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.testing.MarkedProcesses;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standby JVM (docs/remote.md, "The standby JVM") through the real launchers and the
 * packaged jar: a call leaves a standby, the next call of the same context is served by it (the
 * standby ends with that call and a successor waits), with the same bytes, messages, exit codes
 * and signals as a cold run; a killed client ends its standby, an unused one ends after its idle
 * time, another context is never served, and RDFLUX_STANDBY=no starts none. The test JVM's
 * RDFLUX_STANDBY=no (the parent pom) is overridden for the tools it starts, whose
 * XDG_RUNTIME_DIR is in the test's directory; every standby is ended after each test. Each call
 * runs through bash (Tool.group) in the same way, so that every call of a test has the same
 * environment, which is part of the standby's key.
 */
class StandbyE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir);

    private Path standbyDir;
    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void setUp() throws IOException {
        Path run = Files.createDirectory(dir.resolve("run"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        standbyDir = run.resolve("rdflux/standby");
        env.put("XDG_RUNTIME_DIR", run.toString());
        env.put("RDFLUX_STANDBY", "5m");
    }

    /** Ends the standbys this test left (they would wait their idle time), and their successors. */
    @AfterEach
    void endStandbys() {
        StandbyJvms.endAll(dir);
    }

    @Test
    void aCallLeavesAStandbyAndTheNextCallIsServedByIt() throws Exception {
        Tool first = sh(tool("rdflux") + " --version");
        assertThat(first.exitCode(LIMIT)).as(first.err()).isZero();
        String version = out(first);
        assertThat(version).startsWith("rdma-flux ");
        long standby = awaitStandbys(1).get(0);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(standbyDir, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");

        Tool second = sh(tool("rdflux") + " --version");
        assertThat(second.exitCode(LIMIT)).as(second.err()).isZero();
        assertThat(out(second)).isEqualTo(version);
        assertThat(second.err()).isEmpty();
        awaitEnd(standby, "the standby that served the call");
        assertThat(awaitStandbys(1)).as("its successor").doesNotContain(standby);
    }

    @Test
    void aOneBytePairIsServedWithItsOutputToAPipe() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 1, 1);
        List<Long> waiting = twoStandbys();
        Tool r = sh(tool("rdrecv") + " 0 k");
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k " + in);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(r.process.getInputStream().readAllBytes()).isEqualTo(Files.readAllBytes(in));
        assertThat(s.err()).isEmpty();
        assertThat(r.messages()).isEmpty();
        assertServed(waiting);
    }

    /**
     * Files named {@code /dev/stdout} and {@code /dev/stdin} (here through a link) are the
     * client's streams, not the standby's own descriptors (its /dev/null): before the fix the
     * received bytes were lost and the sender sent nothing.
     */
    @Test
    void aServedPairNamingDevStdoutAndDevStdinUsesTheClientsStreams() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 10_000, 5);   // within a pipe's buffer: stdout is read at the end
        Files.createSymbolicLink(dir.resolve("input"), Path.of("/dev/stdin"));
        List<Long> waiting = twoStandbys();
        Tool r = sh(tool("rdrecv") + " 0 k /dev/stdout");
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k input < " + in);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(r.process.getInputStream().readAllBytes()).isEqualTo(Files.readAllBytes(in));
        assertServed(waiting);
    }

    /** A shell's {@code <(...)} as FILE ({@code /dev/fd/63}): the caller's descriptor, open in its client. */
    @Test
    void aServedCallReadsTheCallersProcessSubstitution() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 10_000, 6);
        List<Long> waiting = twoStandbys();
        Tool r = sh(tool("rdrecv") + " 0 k /dev/stdout");
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k <(cat " + in + ")");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(r.process.getInputStream().readAllBytes()).isEqualTo(Files.readAllBytes(in));
        assertServed(waiting);
    }

    /**
     * The standby writes through a file description of its own: the client's, shared with the
     * shell, ends where a cold process would have left it, so what the shell writes next follows.
     */
    @Test
    void a3MiBPairIsServedToARegularFileThatTheShellWritesOn() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 3 << 20, 3);
        Path out = dir.resolve("out.bin");
        List<Long> waiting = twoStandbys();
        Tool r = sh("{ " + tool("rdrecv") + " 0 k; echo end; } > " + out);
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k < " + in);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        byte[] expected = concat(Files.readAllBytes(in), "end\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readAllBytes(out)).isEqualTo(expected);
        assertServed(waiting);
    }

    @Test
    void a3MiBPairIsServedAppendingToWhatTheFileHeld() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 3 << 20, 4);
        Path out = Files.writeString(dir.resolve("out.bin"), "kept\n");
        List<Long> waiting = twoStandbys();
        Tool r = sh(tool("rdrecv") + " 0 k >> " + out);
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k " + in);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        byte[] expected = concat("kept\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(in));
        assertThat(Files.readAllBytes(out)).isEqualTo(expected);
        assertServed(waiting);
    }

    @Test
    void aUsageErrorIsTheSameLineAndExitCodeAsACold() throws Exception {
        Map<String, String> off = new HashMap<>(env);
        off.put("RDFLUX_STANDBY", "no");
        Tool cold = Tool.group(dir, tool("rdsend") + " --no-such-option 127.0.0.1 1 k", off);
        int coldCode = cold.exitCode(LIMIT);
        assertThat(coldCode).isEqualTo(ExitCode.USAGE);

        Tool warmUp = sh(tool("rdsend") + " --version");
        assertThat(warmUp.exitCode(LIMIT)).as(warmUp.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        Tool served = sh(tool("rdsend") + " --no-such-option 127.0.0.1 1 k");
        assertThat(served.exitCode(LIMIT)).isEqualTo(coldCode);
        assertThat(served.err()).isEqualTo(cold.err()).isNotEmpty();
        awaitEnd(standby, "the standby that served the call");
    }

    @Test
    void sigintToAServedReceiverEndsItWith130AndRemovesItsPartialFile() throws Exception {
        Tool warmUp = sh(tool("rdrecv") + " --version");
        assertThat(warmUp.exitCode(LIMIT)).as(warmUp.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        String socket = onlySocket();
        Path out = dir.resolve("out.bin");
        Tool r = sh(tool("rdrecv") + " 0 k " + out);
        int port = r.listeningPort();
        assertThat(Files.exists(standbyDir.resolve(socket))).as("the standby took the call").isFalse();
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + port + " k");
        try (OutputStream feed = s.process.getOutputStream()) {
            Files2.random(feed, 8 << 20);
            feed.flush();
            await("the receiver writing").atMost(LIMIT).until(() -> partialFiles("out.bin").stream()
                    .anyMatch(p -> p.toFile().length() > 0));
            r.signalGroup("INT");   // Ctrl-C
            assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isEqualTo(ExitCode.INTERRUPTED);
            Files2.random(feed, 8 << 20);
        } catch (IOException expectedOnceFailed) {
            // rdsend stops reading its input once the stream failed.
        }
        assertThat(r.messages()).contains("receiver interrupted by SIGINT").contains("partial file removed");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.TEMP_FAIL);
        assertThat(out).doesNotExist();
        assertThat(partialFiles("out.bin")).isEmpty();
        awaitEnd(standby, "the standby that served rdrecv");
    }

    @Test
    void aKilledClientEndsItsStandby() throws Exception {
        Tool warmUp = sh(tool("rdrecv") + " --version");
        assertThat(warmUp.exitCode(LIMIT)).as(warmUp.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        String socket = onlySocket();
        Tool r = sh(tool("rdrecv") + " 0 k " + dir.resolve("out.bin"));
        r.listeningPort();
        assertThat(Files.exists(standbyDir.resolve(socket))).as("the standby took the call").isFalse();
        r.signalGroup("KILL");
        r.exitCode(LIMIT);
        awaitEnd(standby, "the standby of a killed client");
    }

    @Test
    void anUnusedStandbyEndsAfterItsIdleTime() throws Exception {
        env.put("RDFLUX_STANDBY", "2s");
        Tool t = sh(tool("rdflux") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        awaitEnd(standby, "an idle standby");
        assertThat(sockets()).isEmpty();
        assertThat(lockFiles()).as("its slot's lock file, removed as it gave the slot up").isEmpty();
    }

    /**
     * A waiting standby ended by SIGTERM removes its socket's name: a name left counts as a
     * standby waiting, and two left kept the context from ever getting a standby again.
     */
    @Test
    void aWaitingStandbyEndedBySigtermRemovesItsSocket() throws Exception {
        Tool t = sh(tool("rdflux") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        long standby = awaitStandbys(1).get(0);

        ProcessHandle.of(standby).ifPresent(ProcessHandle::destroy);   // SIGTERM

        awaitEnd(standby, "the waiting standby");
        assertThat(sockets()).isEmpty();
        assertThat(lockFiles()).isEmpty();
    }

    /**
     * Two waiting standbys killed outright (SIGKILL: no hook runs) leave their sockets' names;
     * the next call runs cold and still leaves a standby. Before the fix the two names counted
     * as standbys waiting, and their context never got one again.
     */
    @Test
    void twoStandbysKilledOutrightKeepNoCallFromLeavingOne() throws Exception {
        List<Long> killed = twoStandbys();
        for (long pid : killed) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);   // SIGKILL
        }
        for (long pid : killed) {
            awaitEnd(pid, "a standby killed outright");
        }
        assertThat(sockets()).as("the names the killed standbys left").hasSize(2);

        Tool t = sh(tool("rdrecv") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(awaitStandbys(1)).as("a new standby").doesNotContainAnyElementsOf(killed);
    }

    @Test
    void aCallFromAnotherDirectoryOrEnvironmentIsNotServed() throws Exception {
        Tool first = sh(tool("rdflux") + " --version");
        assertThat(first.exitCode(LIMIT)).as(first.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        String socket = onlySocket();

        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Tool other = sh("cd " + elsewhere + " && " + tool("rdflux") + " --version");
        assertThat(other.exitCode(LIMIT)).as(other.err()).isZero();
        assertThat(out(other)).startsWith("rdma-flux ");
        Tool otherEnv = sh("export FOO=bar; " + tool("rdflux") + " --version");
        assertThat(otherEnv.exitCode(LIMIT)).as(otherEnv.err()).isZero();
        assertThat(out(otherEnv)).startsWith("rdma-flux ");

        // A standby deletes its socket's name as it takes a call: this one took none.
        assertThat(Files.exists(standbyDir.resolve(socket), LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(ProcessHandle.of(standby)).isPresent();
        // Each of the other contexts left a standby of its own.
        assertThat(awaitStandbys(3)).contains(standby);
    }

    @Test
    void rdfluxStandbyNoStartsNone() throws Exception {
        env.put("RDFLUX_STANDBY", "no");
        Tool t = sh(tool("rdflux") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(out(t)).startsWith("rdma-flux ");
        // A standby is started before the call's JVM exits: after it, none, and no socket.
        assertThat(MarkedProcesses.find(dir.toString())).isEmpty();
        assertThat(sockets()).isEmpty();
    }

    /**
     * RDFLUX_STANDBY=of, a typo: each call, cold or served, says once on stderr that the value
     * is not understood and what is, and the default applies (a standby is left and serves).
     */
    @Test
    void aStandbyValueNotUnderstoodWarnsOnceACallAndTheDefaultApplies() throws Exception {
        env.put("RDFLUX_STANDBY", "of");
        String warning = "rdflux: warning: RDFLUX_STANDBY=of is not understood (no, off, 0 or false: off;"
                + " yes, on, true or a duration such as 30s or 2m: on), so the default applies: on, a standby waits 5m\n";
        Tool cold = sh(tool("rdflux") + " --version");
        assertThat(cold.exitCode(LIMIT)).as(cold.err()).isZero();
        assertThat(out(cold)).startsWith("rdma-flux ");
        assertThat(cold.err()).isEqualTo(warning);
        long standby = awaitStandbys(1).get(0);

        Tool served = sh(tool("rdflux") + " --version");
        assertThat(served.exitCode(LIMIT)).as(served.err()).isZero();
        assertThat(out(served)).startsWith("rdma-flux ");
        assertThat(served.err()).isEqualTo(warning);
        awaitEnd(standby, "the standby that served the call");
    }

    /** The standby writes stderr through its own open of the file: the shell's offset still ends after its messages. */
    @Test
    void aServedCallsMessagesStayBeforeWhatTheShellWritesNextOnStderr() throws Exception {
        Tool warmUp = sh(tool("rdsend") + " --version");
        assertThat(warmUp.exitCode(LIMIT)).as(warmUp.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        Path log = dir.resolve("log");
        Tool t = sh("{ " + tool("rdsend") + " --no-such-option 127.0.0.1 1 k; echo done >&2; } 2> " + log);
        assertThat(t.exitCode(LIMIT)).isZero();
        awaitEnd(standby, "the standby that served the call");
        assertThat(Files.readAllLines(log)).hasSizeGreaterThan(1).last().isEqualTo("done");
        assertThat(Files.readString(log)).startsWith("rdsend: ");
    }

    /** A standby inherits the ignored signals of the run that started it: a call that ignores SIGINT is another context. */
    @Test
    void aCallThatIgnoresSigintIsNotServedByAStandbyThatDoesNot() throws Exception {
        Tool first = sh(tool("rdflux") + " --version");
        assertThat(first.exitCode(LIMIT)).as(first.err()).isZero();
        long standby = awaitStandbys(1).get(0);
        String socket = onlySocket();
        Tool ignoring = sh("trap '' INT; " + tool("rdflux") + " --version");
        assertThat(ignoring.exitCode(LIMIT)).as(ignoring.err()).isZero();
        assertThat(out(ignoring)).startsWith("rdma-flux ");
        assertThat(Files.exists(standbyDir.resolve(socket), LinkOption.NOFOLLOW_LINKS)).as("not served").isTrue();
        assertThat(ProcessHandle.of(standby)).isPresent();
    }

    /** A JVM option that writes a file: a standby, started with the same options, would write it over. */
    @Test
    void aJvmOptionThatWritesAFileStartsNoStandby() throws Exception {
        Path log = dir.resolve("classes.log");
        env.put("RDFLUX_JAVA_OPTS", "-Xlog:class+load=info:file=" + log);
        Tool t = sh(tool("rdflux") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(MarkedProcesses.find(dir.toString())).isEmpty();
        assertThat(sockets()).isEmpty();
        assertThat(Files.readString(log)).contains("io.rdmaflux.cli.Main source: ");
    }

    /**
     * A standby ended by SIGTERM while its warm-up's tiny tree exists (held there by the
     * test-only pause, WarmUpDirectory.PAUSE_PROPERTY) leaves no rdflux-warm-up-* directory:
     * before the fix, the JVM ended before its warm-up removed it. Its java.io.tmpdir is the
     * test's own, so that no other process's directory is looked at.
     */
    @Test
    void aStandbyEndedDuringItsWarmUpLeavesNoWarmUpDirectory() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        env.put("RDFLUX_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp + " -D" + WarmUpDirectory.PAUSE_PROPERTY + "=600000");
        Tool t = sh(tool("rdflux") + " --version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        await("the warm-up's tree made").atMost(LIMIT).until(() -> warmUpDirectories(tmp).size() == 1
                && Files.exists(warmUpDirectories(tmp).get(0).resolve("src/link"), LinkOption.NOFOLLOW_LINKS));
        List<Long> warming = standbys();
        assertThat(warming).as("the standby warming up").hasSize(1);

        ProcessHandle.of(warming.get(0)).ifPresent(ProcessHandle::destroy);   // SIGTERM

        awaitEnd(warming.get(0), "the standby ended during its warm-up");
        assertThat(warmUpDirectories(tmp)).as("left in its temporary directory").isEmpty();
    }

    // --- helpers ---

    /**
     * Runs a bash script in the test's directory with the test's environment, in a process
     * group of its own (Ctrl-C: {@link Tool#signalGroup}). Bash stays, never execs the last
     * command (which would give the tool another SHLVL, and so another context).
     */
    private Tool sh(String script) {
        return Tool.group(dir, script + "; exit $?", env);
    }

    private static String tool(String name) {
        return Tool.launcher(name);
    }

    private static String out(Tool t) throws IOException {
        return new String(t.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /**
     * Two standbys for rdsend and rdrecv: a pair run while none waits is cold at both ends,
     * and each leaves one as it ends.
     */
    private List<Long> twoStandbys() throws IOException {
        Path one = Files.write(dir.resolve("warm-up.bin"), new byte[] {7});
        Tool r = sh(tool("rdrecv") + " 0 k " + dir.resolve("warm-up.out"));
        Tool s = sh(tool("rdsend") + " 127.0.0.1 " + r.listeningPort() + " k " + one);
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        return awaitStandbys(2);
    }

    /** Each standby in {@code waiting} served a call and ended; two successors wait. */
    private void assertServed(List<Long> waiting) {
        for (long pid : waiting) {
            awaitEnd(pid, "a standby that served a call");
        }
        assertThat(awaitStandbys(2)).as("the successors").doesNotContainAnyElementsOf(waiting);
    }

    /** Waits until exactly {@code n} standbys of this test wait on their sockets; their pids. */
    private List<Long> awaitStandbys(int n) {
        await("standbys waiting").atMost(LIMIT).until(() -> standbys().size() == n && sockets().size() == n);
        return standbys();
    }

    private void awaitEnd(long pid, String what) {
        await(what + " (pid " + pid + ") ending").atMost(LIMIT).until(() -> ProcessHandle.of(pid).isEmpty());
    }

    /** The live standby JVMs of this test: java with "--standby" in its command line, the test's directory in its environment. */
    private List<Long> standbys() {
        return StandbyJvms.of(dir);
    }

    /** The name of the one socket a standby waits on (KEY-N.sock). */
    private String onlySocket() throws IOException {
        List<String> sockets = sockets();
        assertThat(sockets).as("one socket").hasSize(1);
        return sockets.get(0);
    }

    private List<String> lockFiles() throws IOException {
        if (!Files.isDirectory(standbyDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(standbyDir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lock")).sorted().toList();
        }
    }

    private List<String> sockets() throws IOException {
        if (!Files.isDirectory(standbyDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(standbyDir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")).sorted().toList();
        }
    }

    private static List<Path> warmUpDirectories(Path tmp) throws IOException {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(p -> p.getFileName().toString().startsWith(WarmUpDirectory.PREFIX)).toList();
        }
    }

    private List<Path> partialFiles(String name) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("." + name + ".rdflux-")).toList();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
