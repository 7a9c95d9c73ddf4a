package io.rdmaflux.cli;

import io.rdmaflux.channel.Transports;
import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.remote.RemoteInstall;
import io.rdmaflux.cli.warm.WarmDaemon;
import io.rdmaflux.cli.warm.WarmPlace;
import io.rdmaflux.cli.warm.WarmStart;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdflux agent}: the remote end that rdcp and rdpipe start over ssh. Not for people:
 * it reads its job from stdin and speaks the agent protocol on stdout (docs/remote.md); its
 * logs go to stderr, which ssh carries back to the coordinator.
 */
@Command(name = "agent", hidden = true, mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"The remote end of rdcp and rdpipe, started by them over ssh. It reads a job from "
            + "standard input, speaks the agent protocol on standard output (docs/remote.md), and exits, "
            + "tearing its job down, when standard input closes."})
final class AgentCommand implements Callable<Integer> {

    @Option(names = "--hello", paramLabel = "NONCE", description = "Put NONCE in the hello, so that the coordinator "
        + "that started this agent knows its hello from anything a login printed before it.")
    String nonce;

    @Option(names = "--warm", paramLabel = "SECONDS", description = "After the job, leave a warm agent (a per-user "
        + "daemon) that serves later sessions without a new JVM and exits after SECONDS without one; the launcher tries "
        + "it before starting a JVM (docs/remote.md, \"The warm agent\").")
    Long warm;

    @Option(names = "--warm-dir", paramLabel = "DIR", description = "The warm agent's private socket directory "
        + "(default: $XDG_RUNTIME_DIR/rdflux/agent, else ~/.cache/rdflux/agent).")
    String warmDir;

    // Read by bin/rdflux-launch, which sizes this JVM's direct memory for them, and by a warm
    // agent, which declines a session it has too little memory for (docs/remote.md).
    @Option(names = "--frame-size", paramLabel = "BYTES", description = "The frame size of the job to come: the "
        + "launcher sizes this agent's buffer memory for it (default 1 MiB).")
    long frameSize;

    @Option(names = "--slots", paramLabel = "N", description = "The slots of the job to come, sized for as "
        + "--frame-size is (default 16).")
    int slots;

    @Option(names = "--daemon", description = "Be the warm agent's daemon (started by an agent, detached).")
    boolean daemon;

    @Override
    public Integer call() {
        Console.configure("rdflux agent", false, false);
        if (daemon) {
            return warmDaemon();
        }
        // The protocol owns stdout; anything else that prints there goes to stderr instead.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        AgentPipelines pipelines = new AgentPipelines(true);
        Agent agent = new Agent((job, control) -> {
            Console.configure("rdflux agent", job.verbose(), job.debug());
            return pipelines.run(job, control);
        }, ExitCode::of, Console::message);
        Thread hook = new Thread(() -> {
            // SIGTERM or SIGHUP: end the job as if the coordinator had gone away, and wait for its clean-up.
            agent.abort();
            try {
                agent.awaitFinished(Agent.ABORT_GRACE.plus(Duration.ofSeconds(2)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        // Stdin through a channel, closed once the job is served: closing it wakes the reader
        // thread out of its read(). A thread left blocked in a native read holds up the JVM's
        // exit by 300 ms (it waits for threads in native code to settle), on every agent run.
        FileChannel stdin = new FileInputStream(FileDescriptor.in).getChannel();
        int status = agent.serve(Channels.newInputStream(stdin), protocol, System.getenv(), Version.text(), nonce);
        try {
            stdin.close();
        } catch (IOException e) {
            // Exiting anyway.
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook has done its part.
        }
        if (warm != null && warm > 0) {
            leaveWarmAgent();
        }
        return status;
    }

    /** Starts the warm agent for the next calls, unless one is there; says why not on stderr when it cannot. */
    private void leaveWarmAgent() {
        String why;
        try {
            WarmPlace place = place();
            why = place == null ? "no HOME" : WarmStart.start(place, Duration.ofSeconds(warm));
        } catch (IOException | RuntimeException e) {
            why = e.getMessage();
        }
        if (why != null) {
            Console.info("not leaving a warm agent: " + why);
        }
    }

    private WarmPlace place() throws IOException {
        Path jar = RemoteInstall.ownJar();
        return jar == null ? null : WarmPlace.of(jar, warmDir, System.getenv());
    }

    /**
     * The daemon's warm-up: a channel's byte on loopback and a tree packed and written in a private
     * temporary directory (the standby's own, {@link StandbyWarmUp}), so that the first session's
     * receiving side, an {@code rdcp -r}'s sink above all, does not run interpreted. And the RDMA
     * probe (the native library, the devices), whose answer the JVM keeps: the first session
     * would pay it otherwise, and no session does it again.
     */
    private static void warmUp() {
        try {
            StandbyWarmUp.loopbackByte();
        } catch (RuntimeException e) {
            // Warm-up only: the session loads whatever is missing.
        }
        // Asked, not selected: the "RDMA not usable" line stays for the first session that chooses.
        StandbyWarmUp.rdmaProbe();
        StandbyWarmUp.treeCopy(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** Serves sessions until idle ({@code --daemon}); its stderr is /dev/null, so it just exits when it cannot. */
    private int warmDaemon() {
        if (warm == null || warm <= 0) {
            return ExitCode.USAGE;
        }
        try {
            WarmPlace place = place();
            if (place == null) {
                return ExitCode.SOFTWARE;
            }
            WarmSessions sessions = new WarmSessions();
            Runtime.getRuntime().addShutdownHook(new Thread(sessions::abortAll, "warm-agent-shutdown"));
            return new WarmDaemon(place, Duration.ofSeconds(warm), sessions, Console::info, AgentCommand::warmUp).run();
        } catch (IOException e) {
            return ExitCode.SOFTWARE;
        }
    }
}
