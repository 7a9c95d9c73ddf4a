package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.Agent;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

    @Override
    public Integer call() {
        Console.configure("rdflux agent", false, false);
        // The protocol owns stdout; anything else that prints there goes to stderr instead.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        AgentPipelines pipelines = new AgentPipelines();
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
        return status;
    }
}
