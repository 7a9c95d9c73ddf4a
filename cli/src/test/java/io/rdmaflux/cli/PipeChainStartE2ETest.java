package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.cli.PipePlan.Hop;
import io.rdmaflux.cli.remote.RemoteAgent;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteRdflux;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link PipeChain} starts its hops' agents, over the real sshd on 127.0.0.1/.2/.3 with the
 * real {@code rdflux agent}: the hosts' starts run side by side, proved by order, not by time:
 * h1's start goes on only once h3's has begun, which a start in hop order never lets happen
 * (h1's wait then runs out and its start fails).
 */
class PipeChainStartE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    /** Bound on h1's wait for h3's start; reached only when the starts run one after another. */
    private static final long WAIT_SECONDS = 20;

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    /** Each host's start, as it began: h1 waits on h3's. */
    private final Map<String, CountDownLatch> begun = new ConcurrentHashMap<>();

    @AfterEach
    void endAgents() {
        // What Main does at a tool's end: no ssh process outlives the call.
        RemoteAgent.awaitAll(note -> { });
    }

    private CountDownLatch begun(String host) {
        return begun.computeIfAbsent(host, h -> new CountDownLatch(1));
    }

    /** Starts agents with {@code shell}; h1's start first waits until h3's has begun, then does {@code h1}. */
    private Function<RemoteHost, RemoteAgent> h1WaitsForH3(RemoteShell shell, Function<RemoteHost, RemoteAgent> h1) {
        return host -> {
            begun(host.host()).countDown();
            if (!host.host().equals("h1")) {
                return shell.startAgent(host);
            }
            try {
                if (!begun("h3").await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("h3's start did not begin while h1's waited");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return h1.apply(host);
        };
    }

    private PipeChain chain(RemoteShell shell, Function<RemoteHost, RemoteAgent> starter, String... segments) {
        List<PipeSegment> parsed = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            parsed.add(PipeSegment.parse(i + 1, segments[i]));
        }
        List<Hop> hops = PipePlan.of(parsed).runs().get(0);
        return new PipeChain(hops, shell, starter, PluginRegistry.builtins(),
                new PipeCommand.Settings(null, false, false, false, 0), new Meter());
    }

    private RemoteShell shell() throws Exception {
        return RemoteShell.create().rsh(sshd.rsh()).rdfluxPath(ShellWords.quote(RemoteRdflux.in(dir).toString()));
    }

    @Test
    void theHostsAgentsStartSideBySide() throws Exception {
        Path in = Files.writeString(dir.resolve("in"), "through three hosts\n");
        Path out = dir.resolve("out");
        RemoteShell shell = shell();
        PipeChain chain = chain(shell, h1WaitsForH3(shell, shell::startAgent), "h1:< " + in, "h2:cat", "h3:> " + out);

        chain.run().block(Duration.ofSeconds(90));

        assertThat(out).hasContent("through three hosts");
    }

    /**
     * Starts that fail: the first failing hop's failure is the chain's, whichever failed first
     * (h3's fails before h1's here), and the agent that did start (h2's) is ended.
     */
    @Test
    void theFirstFailingHopsFailureIsTheChainsAndTheStartedAgentsEnd() throws Exception {
        RemoteShell shell = shell();
        Function<RemoteHost, RemoteAgent> starter = h1WaitsForH3(shell, h -> {
            throw new IllegalStateException("h1 cannot start");
        });
        Function<RemoteHost, RemoteAgent> failingH3 = host -> {
            if (host.host().equals("h3")) {
                begun("h3").countDown();
                throw new IllegalStateException("h3 cannot start");
            }
            return starter.apply(host);
        };
        PipeChain chain = chain(shell, failingH3, "h1:cat", "h2:cat", "h3:cat");

        assertThatThrownBy(() -> chain.run().block(Duration.ofSeconds(90))).hasMessage("h1 cannot start");
        // h2's agent started for real; disposed of, it ends (NothingLeftRunning checks its ssh session).
    }
}
