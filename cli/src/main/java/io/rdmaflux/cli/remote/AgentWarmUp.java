package io.rdmaflux.cli.remote;

import io.rdmaflux.connector.process.ProcessGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's side of a remote copy run once with no host, no ssh and no network, so that
 * a standby JVM has loaded and initialised it before its call (cli's StandbyWarmUp): the agent's
 * command line, every message of the protocol written and read back through a
 * {@link LineReader}, and a process started as ssh is ({@code setsid}, its own group, stdin,
 * stdout and stderr piped), read to its end, and its group looked for once it has exited.
 *
 * <p>It touches no shared state: no ssh connection sharing (which makes a directory and tells
 * once per process why it cannot), no registry of running agents; the process is
 * {@code /bin/true}, waited for (bounded) and gone when this returns.
 */
public final class AgentWarmUp {

    /** A bound on the process's run; past it, it is killed and the warm-up goes on. */
    private static final long PROCESS_WAIT_MS = 5_000;

    private AgentWarmUp() {
    }

    /** Runs it; {@code job} is a job as the call would send it. Failures are the caller's to ignore. */
    public static void run(RemoteShell shell, AgentMessage.Job job) throws IOException, InterruptedException {
        shell.sharing(SshSharing.off()).command(RemoteHost.parse("warm-up"), shell.agentCommand(AgentMessage.newNonce()));
        messages(job);
        process();
    }

    /** Each message as an agent or the coordinator writes it, parsed back as the other reads it. */
    private static void messages(AgentMessage.Job job) throws IOException {
        String nonce = AgentMessage.newNonce();
        List<AgentMessage> all = List.of(
                new AgentMessage.Hello(AgentMessage.PROTOCOL, "rdma-flux " + ReleaseVersion.local(), "127.0.0.1",
                        "127.0.0.1", nonce),
                job, new AgentMessage.Listening(1, List.of("tcp")), new AgentMessage.Connect("127.0.0.1", 1),
                new AgentMessage.Started(), new AgentMessage.Progress(1), new AgentMessage.Entry("warm-up", "copied"),
                new AgentMessage.Done(0, 1, null));
        StringBuilder lines = new StringBuilder();
        for (AgentMessage m : all) {
            lines.append(m.toLine()).append('\n');
        }
        LineReader reader = new LineReader(new ByteArrayInputStream(lines.toString().getBytes(StandardCharsets.UTF_8)),
                AgentMessage.MAX_LINE);
        String line;
        while ((line = reader.next()) != null) {
            if (!reader.truncated() && AgentMessage.parse(line) instanceof AgentMessage.Hello h) {
                AgentFailures.otherVersion(h, ReleaseVersion.local());
            }
        }
        AgentMessage.isAddress("127.0.0.1");
    }

    /** {@code /bin/true} started as {@link AgentProcess} starts ssh, its output read to the end, its group looked for. */
    private static void process() throws IOException, InterruptedException {
        List<String> argv = ProcessGroup.command(List.of("/bin/true"));
        Process p = SshPrompts.apply(new ProcessBuilder(argv)).start();
        ProcessGroup group = ProcessGroup.of(p, argv);
        try {
            p.getOutputStream().close();
            drain(p.getInputStream());
            drain(p.getErrorStream());
            if (!p.waitFor(PROCESS_WAIT_MS, TimeUnit.MILLISECONDS)) {
                group.kill();
            }
            p.onExit().join();
            group.alive();
        } finally {
            if (p.isAlive()) {
                group.kill();
            }
        }
    }

    private static void drain(InputStream in) throws IOException {
        try (in) {
            in.readAllBytes();
        }
    }
}
