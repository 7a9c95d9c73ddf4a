package io.rdmaflux.connector.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.testing.MarkedProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real process groups: shells that start children, trap SIGTERM, exit before them. Every
 * process a test starts carries its marker in the environment, so that the test can check that
 * nothing is left running (other builds run the same commands on this machine).
 */
class ProcessGroupTest {

    private static final String MARK = "RDFLUX_TEST_MARK";

    @TempDir
    Path dir;

    private final String mark = UUID.randomUUID().toString();
    /** The leader {@link #start} started last. */
    private Process leader;

    @BeforeEach
    void linuxWithSetsid() {
        assertThat(ProcessGroup.setsid()).as("setsid (util-linux) is installed").isPresent();
    }

    @AfterEach
    void nothingLeftBehind() {
        assertThat(MarkedProcesses.awaitNone(MARK + "=" + mark, Duration.ofSeconds(20)))
                .as("processes with marker %s left", mark).isEmpty();
    }

    /** {@code script} through {@code setsid sh -c}, in {@link #dir}; its group once it leads one. */
    private ProcessGroup start(String script) throws IOException {
        List<String> argv = ProcessGroup.command(List.of("/bin/sh", "-c", script));
        assertThat(argv.get(0)).isEqualTo(ProcessGroup.setsid().orElseThrow());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
        pb.environment().put(MARK, mark);
        leader = pb.start();
        leader.getOutputStream().close();
        return ProcessGroup.of(leader, argv);
    }

    /** Waits (bounded) until the script has written {@code name}: it got that far. */
    private void awaitFile(String name) throws InterruptedException {
        for (int i = 0; i < 4000 && !Files.exists(dir.resolve(name)); i++) {
            Thread.sleep(5);
        }
        assertThat(dir.resolve(name)).as("written by the script").exists();
    }

    private String read(String name) throws IOException {
        return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    void aGroupThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
        // The leader handles TERM and carries on; its background child ignores it outright.
        ProcessGroup group = start("trap 'echo TERM >> signals' TERM; (trap '' TERM; exec sleep 600) & "
                + "echo armed > armed; while :; do sleep 1; done");
        awaitFile("armed");

        // The grace is ample for the trap to note SIGTERM (it runs as soon as the sleep dies); the
        // group outlives any grace, so SIGKILL follows.
        assertThat(group.terminate(Duration.ofSeconds(2))).isEqualTo(ProcessGroup.Ending.KILLED);

        assertThat(group.alive()).isFalse();
        // It saw SIGTERM (and ignored it); only SIGKILL, which cannot be trapped, ended it.
        assertThat(read("signals")).isEqualTo("TERM\n");
    }

    @Test
    void aGroupThatEndsOnSigtermEndsWithinTheGrace() throws Exception {
        ProcessGroup group = start("trap 'echo TERM >> signals; exit 0' TERM; sleep 600 & echo armed > armed; wait");
        awaitFile("armed");

        // The grace ends as soon as the group is gone.
        assertThat(group.terminate(Duration.ofMinutes(10))).isEqualTo(ProcessGroup.Ending.TERMINATED);

        assertThat(group.alive()).isFalse();
        assertThat(read("signals")).isEqualTo("TERM\n");
    }

    @Test
    void aGroupWhoseLeaderExitedIsAliveWhileAChildLingers() throws Exception {
        ProcessGroup group = start("sleep 600 >/dev/null 2>&1 & echo $! > child");
        awaitFile("child");
        assertThat(leader.waitFor()).isZero();

        assertThat(group.alive()).as("the sleep still runs in the group").isTrue();
        long child = Long.parseLong(read("child").trim());
        assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive)).hasValue(true);

        assertThat(group.terminate(Duration.ofMinutes(10))).isEqualTo(ProcessGroup.Ending.TERMINATED);
        assertThat(group.alive()).isFalse();
    }

    @Test
    void killEndsTheWholeGroupAtOnce() throws Exception {
        ProcessGroup group = start("trap '' TERM; sleep 600 & sleep 600 & echo armed > armed; wait");
        awaitFile("armed");

        group.kill();

        assertThat(group.alive()).isFalse();
        assertThat(group.terminate(Duration.ofMinutes(10))).isEqualTo(ProcessGroup.Ending.GONE);
    }

    @Test
    void aGroupLeaderIsReadyOnlyOnceSetsidRan() throws Exception {
        List<String> argv = List.of(ProcessGroup.setsid().orElseThrow(), "/bin/sh", "-c", "read x");
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().put(MARK, mark);
        Process p = pb.start();
        ProcessGroup group = ProcessGroup.lead(p, Duration.ofSeconds(20));
        assertThat(group.id()).isEqualTo(p.pid());
        assertThat(group.alive()).isTrue();
        p.getOutputStream().close();   // read ends: the shell exits
        p.waitFor();
        assertThat(group.alive()).isFalse();
    }

    @Test
    void aProgramThatCannotBeFoundIsLeftToFailToStartAsItIs() {
        List<String> argv = List.of("rdflux-no-such-program", "x");
        assertThat(ProcessGroup.command(argv)).isEqualTo(argv);
    }

    /**
     * A group found gone stays gone: nothing can join a group without a member, so a later
     * look need not read /proc again (a tiny rdcp's end looked twice, tens of ms each on a
     * busy host). Played on a copy of /proc's layout: a member there, then none, then one again.
     */
    @Test
    void aGroupFoundGoneIsNotLookedForAgain() throws Exception {
        List<String> argv = ProcessGroup.command(List.of("/bin/sh", "-c", "exit 0"));
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().put(MARK, mark);
        Process exited = pb.start();
        exited.getOutputStream().close();
        assertThat(exited.waitFor()).isZero();
        Path proc = Files.createDirectory(dir.resolve("proc"));
        Path member = Files.createDirectory(proc.resolve("4242"));
        String stat = "4242 (a child) x) S 1 " + exited.pid() + " " + exited.pid() + " 0 -1 4194560 100 0 0 0\n";
        Files.writeString(member.resolve("stat"), stat);
        ProcessGroup group = ProcessGroup.under(proc, exited);

        assertThat(group.alive()).as("a member runs").isTrue();
        Files.delete(member.resolve("stat"));
        assertThat(group.alive()).as("none runs").isFalse();
        Files.writeString(member.resolve("stat"), stat);
        assertThat(group.alive()).as("found gone before: not looked for again").isFalse();
        assertThat(group.terminate(Duration.ofMinutes(10))).isEqualTo(ProcessGroup.Ending.GONE);
    }
}
