package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.cli.remote.RemoteRdflux;
import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.cli.remote.WarmAgents;
import io.rdmaflux.cli.warm.WarmStart;
import io.rdmaflux.testing.SpecialFiles;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote agent's direct memory follows the job's {@code --frame-size} and {@code --slots}
 * (docs/remote.md, "The warm agent", Memory): a copy whose receive ring is larger than
 * the launcher's default limit arrives whole, through a cold agent and past a warm agent too
 * small for it. The destination is a FIFO read only once most of the data is sent, so the
 * remote end holds most of its ring at once (64 MiB x 8 slots, where the default limit of
 * about 200 MiB holds three frames).
 */
class AgentMemoryE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(180);
    private static final long FRAME = 64L << 20;
    private static final int SLOTS = 8;

    @TempDir
    Path dir;

    private Path tool;
    private Path warmDir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void setUp() throws Exception {
        tool = RemoteRdflux.in(dir);
        warmDir = dir.resolve("agent");
    }

    /** Ends the daemons this test left (they would stay their idle time). */
    @AfterEach
    void endDaemons() {
        WarmDaemons.end(warmDir);
    }

    @Test
    void aColdAgentGetsTheMemoryOfTheJobsRing() throws Exception {
        assertRingArrivesWhole(Map.of(WarmAgents.ENV, "no"), "");
    }

    @Test
    void aWarmAgentTooSmallForTheJobDeclinesItAndAJvmSizedForItServesIt() throws Exception {
        // A daemon with room for one default session (its direct memory sized for one agent).
        Path tiny = Files.writeString(dir.resolve("tiny"), "hi\n");
        Tool first = rdcp(Map.of(WarmAgents.ENV, "5m"), WarmStart.SESSIONS_ENV + "=1 ", tiny.toString(), "h1:" + dir.resolve("one"));
        assertThat(first.exitCode(LIMIT)).as(first.err()).isZero();
        await().atMost(Duration.ofSeconds(60)).until(() -> daemons().size() == 1);
        String err = assertRingArrivesWhole(Map.of(WarmAgents.ENV, "5m"), WarmStart.SESSIONS_ENV + "=1 ");
        assertThat(err).as("declined by the daemon: a JVM agent of its own").doesNotContain("warm agent (pid");
    }

    @Test
    void aHostTooSmallForTheJobsBuffersRefusesItInOneLineNamingItself() throws Exception {
        // A host whose agents may have 256 MiB of direct memory (its own RDFLUX_JAVA_OPTS), where
        // 64 MiB x 8 needs about 1 GiB to receive: refused before anything is sent, exit 64.
        Path small = RemoteRdflux.in(dir, "rdflux on a small host", "-XX:MaxDirectMemorySize=256m");
        Path src = Files.writeString(dir.resolve("src"), "x");
        Tool t = rdcp(Map.of(WarmAgents.ENV, "no"), "", small, "--frame-size", "64M", "--slots", "8", src.toString(),
                "h1:" + dir.resolve("dst"));
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.USAGE);
        assertThat(t.err().lines().toList()).as(t.err()).containsExactly("rdcp: h1: --frame-size 64M with --slots 8 "
                + "needs about 1.03 GiB of buffer memory, more than the agent's JVM there may use (256.00 MiB): use a "
                + "smaller --frame-size or fewer --slots, or raise the limit there with RDFLUX_JAVA_OPTS="
                + "-XX:MaxDirectMemorySize=2g");
        assertThat(dir.resolve("dst")).doesNotExist();
    }

    @Test
    void rdpipeSizesEveryHopsAgentForItsFrames() throws Exception {
        // 64 MiB x 8 through two remote hops: each agent's JVM gets the direct memory of its job
        // (the default limit, about 200 MiB, would refuse it), and the bytes arrive.
        Path out = dir.resolve("out");
        Tool t = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.from(Files.writeString(dir.resolve("in"), "hello\n").toFile()),
                ProcessBuilder.Redirect.to(out.toFile()), env(Map.of(WarmAgents.ENV, "no")), "-e", sshd.rsh(),
                "--rdflux-path", ShellWords.quote(tool.toString()), "--frame-size", "64M", "--slots", "8",
                "h1:tr [:lower:] [:upper:]", "h2:rev");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(Files.readString(out)).isEqualTo("OLLEH\n");

        // On a host too small for them, the hop's agent refuses them: the sizes reach every hop's job.
        Path small = RemoteRdflux.in(dir, "rdflux on a small host", "-XX:MaxDirectMemorySize=256m");
        Tool refused = Tool.start(dir, "rdpipe", ProcessBuilder.Redirect.from(dir.resolve("in").toFile()),
                ProcessBuilder.Redirect.to(out.toFile()), env(Map.of(WarmAgents.ENV, "no")), "-e", sshd.rsh(),
                "--rdflux-path", ShellWords.quote(small.toString()), "--frame-size", "64M", "--slots", "8", "h1:cat");
        assertThat(refused.exitCode(LIMIT)).as(refused.err()).isEqualTo(ExitCode.USAGE);
        assertThat(refused.err()).as(refused.err()).contains("h1").contains("--frame-size 64M with --slots 8 needs about")
                .contains("more than the agent's JVM there may use (256.00 MiB)").doesNotContain("internal error");
    }

    /** Copies 8 frames of 64 MiB into a remote FIFO read once all of them are sent; the call's stderr. */
    private String assertRingArrivesWhole(Map<String, String> env, String assignments) throws Exception {
        long size = FRAME * SLOTS;
        Path src = dir.resolve("big");
        byte[] mib = new byte[1 << 20];
        java.util.Arrays.fill(mib, (byte) 'x');   // no zeros: a hole would be sent as a hole, not as frames
        try (OutputStream out = Files.newOutputStream(src)) {
            for (long n = 0; n < size; n += mib.length) {
                out.write(mib);
            }
        }
        Path fifo = SpecialFiles.fifo(dir.resolve("fifo"));
        Tool t = rdcp(env, assignments, "-v", "--progress", "--frame-size", "64M", "--slots", Integer.toString(SLOTS),
                src.toString(), "h1:" + fifo);
        // Nothing reads the FIFO until six frames are sent (credits stop the sender at seven: the
        // tree's header took one): the remote end then holds at least five at once, the first
        // stuck in the FIFO, where its default limit holds three.
        await().atMost(Duration.ofSeconds(120)).until(() -> sentMiB(t.err()) >= (SLOTS - 2) * (FRAME >> 20) || !t.process.isAlive());
        CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return in.transferTo(OutputStream.nullOutputStream());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        if (!t.process.isAlive()) {
            // It failed before the reader came: the writer end never opened, so let the reader go.
            try (OutputStream unblock = Files.newOutputStream(fifo)) {
                unblock.flush();
            }
        }
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(read.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(size);
        return t.err();
    }

    /** The most MiB the progress lines say were sent. */
    private static double sentMiB(String err) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+\\.[0-9]+) MiB / ").matcher(err);
        double most = 0;
        while (m.find()) {
            most = Math.max(most, Double.parseDouble(m.group(1)));
        }
        return most;
    }

    private Tool rdcp(Map<String, String> extra, String assignments, String... args) {
        return rdcp(extra, assignments, tool, args);
    }

    /** rdcp with {@code remote} as the rdflux of the remote hosts. */
    private Tool rdcp(Map<String, String> extra, String assignments, Path remote, String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", assignments + ShellWords.quote(remote.toString())));
        all.addAll(List.of(args));
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.PIPE, env(extra), all.toArray(String[]::new));
    }

    /** The tools' environment: {@code extra}, this test's marker and warm-agent directory. */
    private Map<String, String> env(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(extra);
        env.put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
        env.put(WarmAgents.DIR_ENV, warmDir.toString());
        return env;
    }

    /** The daemons of this test's directory. */
    private List<ProcessHandle> daemons() {
        return WarmDaemons.of(warmDir);
    }
}
