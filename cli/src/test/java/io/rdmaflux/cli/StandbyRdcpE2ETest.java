package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A remote rdcp served by a standby JVM, whose warm-up ran rdcp's own path without a host
 * (StandbyWarmUp.remoteCopy): the served call copies and says what a cold one does, to the
 * loopback sshd. What the warm-up must not do is keep anything a call would see: here, the
 * note that the ssh connection is not shared, which a process gives once, must still come in
 * the served call. The tools' XDG_RUNTIME_DIR is in the test's directory; every standby is
 * ended after the test.
 */
class StandbyRdcpE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void setUp() throws IOException {
        Path run = Files.createDirectory(dir.resolve("run"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        // The shared connection's directory open to others: each call says it does not share.
        Files.createDirectories(run.resolve("rdflux/ssh"));
        Files.setPosixFilePermissions(run.resolve("rdflux/ssh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        env.put("XDG_RUNTIME_DIR", run.toString());
        env.put("RDFLUX_STANDBY", "5m");
        env.put("RDFLUX_WARM_AGENT", "no");
        env.put("RDFLUX_SSH_SHARE", "5m");   // on, as by default (the test JVM's is off)
    }

    /** Ends the standbys this test left (they would wait their idle time). */
    @AfterEach
    void endStandbys() {
        StandbyJvms.endAll(dir);
    }

    @Test
    void aServedRemoteRdcpCopiesAndSaysWhatAColdOneDoes() throws Exception {
        Path remote = remoteTool();
        Path src = Files.writeString(dir.resolve("tiny"), "hi\n");
        Path dest = Files.createDirectory(dir.resolve("dest"));
        String rdcp = ShellWords.quote(Tool.launcher("rdcp")) + " -e " + ShellWords.quote(sshd.rsh())
                + " --rdflux-path " + ShellWords.quote(ShellWords.quote(remote.toString())) + " " + src + " h1:" + dest;

        Tool cold = Tool.group(dir, rdcp + "/cold; exit $?", env);
        assertThat(cold.exitCode(LIMIT)).as(cold.err()).isZero();
        assertThat(cold.err()).contains("not sharing the ssh connection");
        long standby = awaitOneStandby();

        Tool served = Tool.group(dir, rdcp + "/served; exit $?", env);
        assertThat(served.exitCode(LIMIT)).as(served.err()).isZero();
        await("the standby that served the call (pid " + standby + ") ending").atMost(LIMIT)
                .until(() -> ProcessHandle.of(standby).isEmpty());
        assertThat(Files.readString(dest.resolve("served"))).isEqualTo("hi\n");
        assertThat(served.err()).isEqualTo(cold.err());
        assertThat(new String(served.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEmpty();
    }

    /**
     * A waiting standby has compiled the tree copy's per-file path (the source's file reads, the
     * parser, the small-file writers): its warm-up copies enough files (StandbyWarmUp.treeCopy)
     * for C1, which compiles a method after ~200 calls; with the 20-file warm-up none of them was,
     * and a served rdcp -r ran its first few hundred files interpreted. The JVM's own list of
     * compiled methods (jcmd) shows it.
     */
    @Test
    void aWaitingStandbyHasCompiledTheTreeCopysPerFilePath() throws Exception {
        Path src = Files.writeString(dir.resolve("tiny"), "hi\n");
        Tool cold = Tool.group(dir, ShellWords.quote(Tool.launcher("rdcp")) + " " + src + " " + dir.resolve("copy")
                + "; exit $?", env);
        assertThat(cold.exitCode(LIMIT)).as(cold.err()).isZero();
        long standby = awaitOneStandby();

        // Classes, not single methods: C1 is asked at every 128th call, against thresholds that
        // grow with its queue, so which of the path's methods ~350 calls compile varies by run.
        CompiledMethods.await(standby, Duration.ofSeconds(90), " io.rdmaflux.connector.tree.SourceFile.",
                " io.rdmaflux.connector.tree.TreeParser.", " io.rdmaflux.connector.tree.SmallFileWriters.");
    }

    /** The tool as the remote host runs it: this JDK, a marker every JVM there carries. */
    private Path remoteTool() throws IOException {
        Path p = dir.resolve("rdflux-remote");
        Files.writeString(p, "#!/bin/sh\n"
                + "export JAVA_HOME=" + ShellWords.quote(System.getProperty("java.home")) + "\n"
                + "export RDFLUX_JAVA_OPTS=" + ShellWords.quote("-Drdflux.test.marker=" + dir) + "\n"
                + "exec " + ShellWords.quote(Tool.HOME.resolve("bin/rdflux").toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    /** Waits until one standby of this test waits; its pid. */
    private long awaitOneStandby() {
        Path sockets = dir.resolve("run/rdflux/standby");
        await("a standby waiting").atMost(LIMIT).until(() -> {
            if (standbys().size() != 1 || !Files.isDirectory(sockets)) {
                return false;
            }
            try (var in = Files.list(sockets)) {
                return in.anyMatch(p -> p.toString().endsWith(".sock"));
            }
        });
        return standbys().get(0);
    }

    /** The live standby JVMs of this test: java with "--standby" in its command line, the test's directory in its environment. */
    private List<Long> standbys() {
        return StandbyJvms.of(dir);
    }
}
