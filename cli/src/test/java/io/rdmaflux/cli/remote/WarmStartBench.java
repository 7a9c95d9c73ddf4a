package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code scripts/bench-remote-start --warm}: rdcp of a 3-byte file to the loopback sshd with a
 * cold remote agent (a JVM per call) and with the warm agent (a daemon that a first call left),
 * each with and without a shared ssh connection, and with the warm agent, the shared connection
 * and the local standby JVM (the default: all three levers), against scp with and without a
 * master; medians of ROUNDS, steps interleaved round by round. The standby's step waits, untimed,
 * for a standby to wait (as a user's next call, seconds later, finds one). Not a test: a
 * benchmark, run by hand. Ends the daemon and the standbys it made.
 */
public final class WarmStartBench {

    private WarmStartBench() {
    }

    /** Arguments: the remote rdflux command, this checkout's bin directory, rounds (default 5). */
    public static void main(String[] args) throws Exception {
        String rdflux = args[0];
        Path bin = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path work = Files.createTempDirectory(Path.of("/tmp"), "rdfw");   // short: socket paths are limited
        Path warmDir = work.resolve("agent");
        try (SshServer sshd = SshServer.start()) {
            String rsh = "ssh -F " + sshd.sshConfig();
            Path runtime = Files.createDirectory(work.resolve("run"));
            Path file = Files.writeString(work.resolve("tiny"), "hi\n");
            Path dest = Files.createDirectory(work.resolve("dest"));
            List<String> ssh = List.of("ssh", "-F", sshd.sshConfig().toString());
            List<String> master = new ArrayList<>(List.of("scp", "-q", "-F", sshd.sshConfig().toString()));
            master.addAll(List.of("-o", "ControlMaster=auto", "-o", "ControlPath=" + runtime + "/b-%C",
                    "-o", "ControlPersist=300"));
            List<String> rdcp = List.of(bin.resolve("rdcp").toString(), "-e", rsh, "--rdflux-path", rdflux,
                    file.toString(), "h1:" + dest + "/rdcp");

            Map<String, Step> steps = new LinkedHashMap<>();
            steps.put("scp", () -> run(plus(List.of("scp", "-q", "-F", sshd.sshConfig().toString()), file.toString(),
                    "h1:" + dest + "/scp"), Map.of()));
            steps.put("scp through a master", () -> run(plus(master, file.toString(), "h1:" + dest + "/scp2"), Map.of()));
            steps.put("rdcp, cold agent, no sharing", () -> run(rdcp, env(runtime, "no", "no", warmDir, "no")));
            steps.put("rdcp, cold agent, shared ssh connection", () -> run(rdcp, env(runtime, "5m", "no", warmDir, "no")));
            steps.put("rdcp, warm agent, no sharing", () -> run(rdcp, env(runtime, "no", "5m", warmDir, "no")));
            steps.put("rdcp, warm agent, shared ssh connection",
                    () -> run(rdcp, env(runtime, "5m", "5m", warmDir, "no")));
            Path standbys = runtime.resolve("rdflux/standby");
            steps.put("rdcp, warm agent, shared connection, standby JVM (the default)", () -> {
                awaitStandby(standbys);
                return run(rdcp, env(runtime, "5m", "5m", warmDir, "5m"));
            });
            for (Step s : steps.values()) {
                s.ms();   // warm the caches, start the master and the daemon
            }
            Map<String, long[]> ms = new LinkedHashMap<>();
            steps.keySet().forEach(k -> ms.put(k, new long[rounds]));
            for (int i = 0; i < rounds; i++) {
                for (Map.Entry<String, Step> s : steps.entrySet()) {
                    ms.get(s.getKey())[i] = s.getValue().ms();
                }
            }
            System.out.printf(Locale.ROOT, "| rdcp of a 3-byte file (median of %d) | ms | / scp |%n|---|---:|---:|%n", rounds);
            long[] scp = ms.get("scp").clone();
            Arrays.sort(scp);
            ms.forEach((k, v) -> {
                Arrays.sort(v);
                System.out.printf(Locale.ROOT, "| %s | %d | %.2f |%n", k, v[rounds / 2], (double) v[rounds / 2] / scp[rounds / 2]);
            });
        } finally {
            ProcessHandle.allProcesses().filter(p -> p.info().arguments()
                    .map(a -> List.of(a).contains("--daemon") && List.of(a).contains(warmDir.toString())).orElse(false))
                    .forEach(ProcessHandle::destroy);
            endStandbys(work);
            try (var walk = Files.walk(work)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private interface Step {
        long ms() throws Exception;
    }

    private static Map<String, String> env(Path runtime, String share, String warm, Path warmDir, String standby) {
        return Map.of(SshSharing.ENV, share, "XDG_RUNTIME_DIR", runtime.toString(), WarmAgents.ENV, warm,
                WarmAgents.DIR_ENV, warmDir.toString(), "RDFLUX_STANDBY", standby);
    }

    /** Waits (at most a minute, untimed) for a standby's socket in {@code dir}: the first call leaves it. */
    static void awaitStandby(Path dir) throws IOException, InterruptedException {
        for (int i = 0; i < 600; i++) {
            if (Files.isDirectory(dir)) {
                try (var socks = Files.list(dir)) {
                    if (socks.anyMatch(p -> p.getFileName().toString().endsWith(".sock"))) {
                        return;
                    }
                }
            }
            Thread.sleep(100);
        }
    }

    /** Ends the standby JVMs whose environment holds {@code work} (this benchmark's runtime directory). */
    static void endStandbys(Path work) {
        ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(a -> List.of(a).contains("--standby")).orElse(false)
                        && p.info().command().map(c -> c.endsWith("java")).orElse(false))
                .filter(p -> {
                    try {
                        return new String(Files.readAllBytes(Path.of("/proc/" + p.pid() + "/environ")),
                                java.nio.charset.StandardCharsets.UTF_8).contains(work.toString());
                    } catch (IOException gone) {
                        return false;
                    }
                }).forEach(ProcessHandle::destroy);
    }

    private static List<String> plus(List<String> argv, String... more) {
        List<String> all = new ArrayList<>(argv);
        all.addAll(List.of(more));
        return all;
    }

    /** Milliseconds {@code argv} took; fails on a non-zero exit. */
    private static long run(List<String> argv, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        long start = System.nanoTime();
        int rc = pb.start().waitFor();
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (rc != 0) {
            throw new IllegalStateException(argv + " exited " + rc);
        }
        return ms;
    }
}
