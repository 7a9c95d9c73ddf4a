package io.rdmaflux.cli.remote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import reactor.core.publisher.Flux;

/**
 * How long a three-host chain takes to be ready (every receiver bound, every sender told where
 * to go) when all agents start at once, against starting from the tail, each next agent
 * started once the one after it has reported its port. Through the loopback sshd; run by
 * {@code scripts/bench-remote-start}. Arguments: RDFLUX_PATH [ROUNDS].
 */
public final class AgentStartBench {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final List<String> CHAIN = List.of("h1", "h2", "h3");

    private AgentStartBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (SshServer sshd = SshServer.start()) {
            RemoteShell shell = RemoteShell.create().rsh(sshd.rsh()).rdfluxPath(args[0]);
            run(shell, true);
            long[] parallel = new long[rounds];
            long[] tailFirst = new long[rounds];
            for (int i = 0; i < rounds; i++) {
                parallel[i] = run(shell, true);
                tailFirst[i] = run(shell, false);
            }
            Arrays.sort(parallel);
            Arrays.sort(tailFirst);
            System.out.printf(Locale.ROOT, "3-host chain ready, median of %d: parallel %d ms, tail first %d ms, ratio %.2f%n",
                    rounds, parallel[rounds / 2], tailFirst[rounds / 2],
                    (double) tailFirst[rounds / 2] / parallel[rounds / 2]);
        }
    }

    /** Milliseconds until the chain is ready; the agents are then sent away. */
    private static long run(RemoteShell shell, boolean parallel) {
        long start = System.nanoTime();
        List<RemoteAgent> agents = new ArrayList<>();
        try {
            if (parallel) {
                for (String h : CHAIN) {
                    agents.add(shell.startAgent(RemoteHost.parse(h)));
                }
                for (int i = 0; i < agents.size(); i++) {
                    agents.get(i).submit(job(i == agents.size() - 1 ? null : Map.of())).block(LIMIT);
                }
                for (int i = agents.size() - 1; i > 0; i--) {
                    int port = agents.get(i).listening().block(LIMIT).port();
                    agents.get(i - 1).connect(agents.get(i).dataAddress().block(LIMIT), port).block(LIMIT);
                }
                agents.get(0).listening().block(LIMIT);
            } else {
                String address = null;
                int port = 0;
                for (int i = CHAIN.size() - 1; i >= 0; i--) {
                    RemoteAgent a = shell.startAgent(RemoteHost.parse(CHAIN.get(i)));
                    agents.add(a);
                    a.submit(job(address == null ? null : Map.of("host", address, "port", port))).block(LIMIT);
                    port = a.listening().block(LIMIT).port();
                    address = a.dataAddress().block(LIMIT);
                }
            }
            return (System.nanoTime() - start) / 1_000_000;
        } finally {
            agents.forEach(RemoteAgent::dispose);
            Flux.fromIterable(agents).flatMap(a -> a.exited()).blockLast(LIMIT);
        }
    }

    /** A relay (receive, send downstream), or the tail (receive into /dev/null) when {@code downstream} is null. */
    private static AgentMessage.Job job(Map<String, Object> downstream) {
        Map<String, Object> sink = new LinkedHashMap<>();
        if (downstream == null) {
            sink.put("type", "file");
            sink.put("path", "/dev/null");
        } else {
            sink.put("type", "send");
            sink.put("key", "bench");
            sink.putAll(downstream);
        }
        return new AgentMessage.Job(Map.of(
                "source", Map.of("type", "receive", "port", 0, "key", "bench", "transport", "tcp"),
                "sink", sink), 0, false, false);
    }
}
