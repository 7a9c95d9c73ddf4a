package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.warm.WarmSession;
import io.rdmaflux.pipeline.plugin.ProcessContext;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agents of a warm agent's sessions: each runs its jobs as {@code rdflux agent} does, but in
 * its session's environment, its commands' stderr and its own lines going to the session's
 * stderr, never to the daemon's (which is /dev/null): its log lines too, under {@code -v} or
 * {@code --debug} ({@link WarmLogs}). Under {@code -v} a job's first line says
 * which daemon serves it and how many sessions it has served, so a user (and a test) can tell a
 * warm start from a cold one.
 */
final class WarmSessions implements WarmSession.Agents {

    private final Set<Agent> running = ConcurrentHashMap.newKeySet();
    private final java.util.Map<Agent, Object> keys = new ConcurrentHashMap<>();
    private final WarmLogs logs = new WarmLogs().install();

    @Override
    public Agent agent(WarmSession.Context context, PrintStream stderr, int session) {
        AgentPipelines pipelines = new AgentPipelines(ProcessContext.session(context.environment(), stderr::println), true);
        Object key = new Object();
        Agent agent = new Agent((job, control) -> {
            logs.add(key, stderr, job.verbose(), job.debug());
            if (job.verbose()) {
                stderr.println("warm agent (pid " + ProcessHandle.current().pid() + "): session " + session);
            }
            return pipelines.run(job, control);
        }, ExitCode::of, Console::message);
        running.add(agent);
        keys.put(agent, key);
        logs.open(key);
        return agent;
    }

    @Override
    public void ended(Agent agent) {
        running.remove(agent);
        Object key = keys.remove(agent);
        if (key != null) {
            logs.remove(key);
        }
    }

    @Override
    public String version() {
        return Version.text();
    }

    /** Ends every session's job (SIGTERM to the daemon), and waits a while for them to clean up. */
    void abortAll() {
        for (Agent a : running) {
            a.abort();
        }
        for (Agent a : running) {
            try {
                a.awaitFinished(Agent.ABORT_GRACE.plus(Duration.ofSeconds(2)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
