package io.rdmaflux.cli.remote;

import java.time.Duration;
import java.util.Map;

/**
 * A coordinator for the test that kills one: run as its own JVM, it starts an agent that
 * receives into a file, prints {@code LISTENING ADDRESS PORT} and waits to be killed; the test
 * streams the data itself, so that the data connection outlives this process and only the
 * closing of the agent's stdin can end it. Arguments: RSH RDFLUX_PATH HOST REMOTE_FILE KEY.
 */
public final class KilledCoordinator {

    private KilledCoordinator() {
    }

    public static void main(String[] args) {
        RemoteShell shell = RemoteShell.create().rsh(args[0]).rdfluxPath(args[1]);
        RemoteAgent agent = shell.startAgent(RemoteHost.parse(args[2]));
        agent.submit(new AgentMessage.Job(Map.of(
                "source", Map.of("type", "receive", "port", 0, "key", args[4], "transport", "tcp"),
                "sink", Map.of("type", "file", "path", args[3])), 0, false, false)).block(Duration.ofSeconds(60));
        int port = agent.listening().block(Duration.ofSeconds(60)).port();
        System.out.println("LISTENING " + agent.dataAddress().block(Duration.ofSeconds(60)) + " " + port);
        System.out.flush();
        agent.done().block(Duration.ofHours(1));
    }
}
