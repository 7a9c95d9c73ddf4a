package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Where the time of a tiny rdcp goes, through the loopback sshd: the tool's whole run (3-byte
 * file to h1, with and without a shared ssh connection) against scp, and the parts: a local JVM
 * ({@code rdflux --version}), an ssh login, a login through a shared master, the remote JVM
 * ({@code ssh h1 rdflux --version}), the agent's start to its hello, and a tiny job on a
 * started agent. Medians of ROUNDS, the steps interleaved round by round. Run by
 * {@code scripts/bench-remote-start --breakdown}. Arguments: RDFLUX_PATH BIN_DIR [ROUNDS].
 */
public final class StartBreakdownBench {

    private static final Duration LIMIT = Duration.ofSeconds(120);

    private StartBreakdownBench() {
    }

    public static void main(String[] args) throws Exception {
        String rdflux = args[0];
        Path bin = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path work = Files.createTempDirectory(Path.of("/tmp"), "rdfb");   // short: ssh's socket paths are limited
        try (SshServer sshd = SshServer.start()) {
            String rsh = "ssh -F " + sshd.sshConfig();
            Path runtime = Files.createDirectory(work.resolve("run"));
            Path file = Files.writeString(work.resolve("tiny"), "hi\n");
            Path dest = Files.createDirectory(work.resolve("dest"));
            Map<String, String> off = env(runtime, "no");
            Map<String, String> on = env(runtime, "5m");
            RemoteShell plain = RemoteShell.create().rsh(rsh).rdfluxPath(rdflux);
            List<String> ssh = List.of("ssh", "-F", sshd.sshConfig().toString());
            List<String> shared = new ArrayList<>(ssh);
            shared.addAll(List.of("-o", "ControlMaster=auto", "-o", "ControlPath=" + runtime + "/b-%C",
                    "-o", "ControlPersist=300"));

            Map<String, Callable<Long>> steps = new LinkedHashMap<>();
            steps.put("scp, 3-byte file", () -> run(List.of("scp", "-q", "-F", sshd.sshConfig().toString(),
                    file.toString(), "h1:" + dest + "/scp"), off));
            steps.put("scp, 3-byte file, via a master", () -> run(plus(scp(shared), file.toString(), "h1:" + dest + "/scp2"),
                    off));
            steps.put("rdcp, 3-byte file, no sharing", () -> run(rdcp(bin, rsh, rdflux, file, dest), off));
            steps.put("rdcp, 3-byte file, shared ssh connection", () -> run(rdcp(bin, rsh, rdflux, file, dest), on));
            steps.put("local JVM: rdflux --version", () -> run(List.of(bin.resolve("rdflux").toString(), "--version"), off));
            steps.put("ssh login: ssh h1 true", () -> run(plus(ssh, "h1", "true"), off));
            steps.put("shared login: ssh h1 true via a master", () -> run(plus(shared, "h1", "true"), off));
            steps.put("ssh h1 rdflux --version (login + remote JVM)", () -> run(plus(ssh, "h1", rdflux + " --version"), off));
            steps.put("agent: ssh to hello (login + remote JVM + agent)", () -> hello(plain));
            steps.put("agent: tiny job, hello to done", () -> job(plain, file, dest));

            steps.values().forEach(StartBreakdownBench::quietly);   // warm the caches, start the masters
            Map<String, long[]> ms = new LinkedHashMap<>();
            steps.keySet().forEach(k -> ms.put(k, new long[rounds]));
            for (int i = 0; i < rounds; i++) {
                for (Map.Entry<String, Callable<Long>> s : steps.entrySet()) {
                    ms.get(s.getKey())[i] = s.getValue().call();
                }
            }
            System.out.printf(Locale.ROOT, "| step (median of %d) | ms |%n|---|---:|%n", rounds);
            Map<String, Long> median = new HashMap<>();
            ms.forEach((k, v) -> {
                Arrays.sort(v);
                median.put(k, v[rounds / 2]);
                System.out.printf(Locale.ROOT, "| %s | %d |%n", k, v[rounds / 2]);
            });
            long rdcp = median.get("rdcp, 3-byte file, no sharing");
            long local = median.get("local JVM: rdflux --version");
            long login = median.get("ssh login: ssh h1 true");
            long hello = median.get("agent: ssh to hello (login + remote JVM + agent)");
            System.out.printf(Locale.ROOT, "%nrdcp without sharing, %d ms: local JVM ~%d, ssh login ~%d, remote JVM and agent "
                    + "to hello ~%d, the rest (job, channel, local set-up and exit) ~%d%n",
                    rdcp, local, login, hello - login, rdcp - local - hello);
            System.out.printf(Locale.ROOT, "rdcp / scp: %.2f without sharing, %.2f with a shared connection "
                    + "(against scp through a master too: %.2f)%n",
                    (double) rdcp / median.get("scp, 3-byte file"),
                    (double) median.get("rdcp, 3-byte file, shared ssh connection") / median.get("scp, 3-byte file"),
                    (double) median.get("rdcp, 3-byte file, shared ssh connection")
                            / median.get("scp, 3-byte file, via a master"));
        } finally {
            // The masters end with sshd's sessions (closed above); their sockets go with the directory.
            delete(work);
        }
    }

    private static Map<String, String> env(Path runtime, String share) {
        // No warm agent: these rows are the cold start (WarmStartBench measures the warm one).
        return Map.of(SshSharing.ENV, share, "XDG_RUNTIME_DIR", runtime.toString(), WarmAgents.ENV, "no");
    }

    private static List<String> rdcp(Path bin, String rsh, String rdflux, Path file, Path dest) {
        return List.of(bin.resolve("rdcp").toString(), "-e", rsh, "--rdflux-path", rdflux, file.toString(),
                "h1:" + dest + "/rdcp");
    }

    /** scp with the options of {@code ssh} (its words after "ssh"). */
    private static List<String> scp(List<String> ssh) {
        List<String> argv = new ArrayList<>(List.of("scp", "-q"));
        argv.addAll(ssh.subList(1, ssh.size()));
        return argv;
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
        Process p = pb.start();
        int rc = p.waitFor();
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (rc != 0) {
            throw new IllegalStateException(argv + " exited " + rc);
        }
        return ms;
    }

    private static long hello(RemoteShell shell) {
        long start = System.nanoTime();
        RemoteAgent a = shell.startAgent(RemoteHost.parse("h1"));
        try {
            a.hello().block(LIMIT);
            return (System.nanoTime() - start) / 1_000_000;
        } finally {
            a.dispose();
            a.exited().block(LIMIT);
        }
    }

    private static long job(RemoteShell shell, Path file, Path dest) {
        RemoteAgent a = shell.startAgent(RemoteHost.parse("h1"));
        try {
            a.hello().block(LIMIT);
            long start = System.nanoTime();
            a.submit(new AgentMessage.Job(Map.of("source", Map.of("type", "file", "path", file.toString()),
                    "sink", Map.of("type", "file", "path", dest.resolve("job").toString())), 0, false, false)).block(LIMIT);
            a.done().block(LIMIT);
            return (System.nanoTime() - start) / 1_000_000;
        } finally {
            a.dispose();
            a.exited().block(LIMIT);
        }
    }

    private static void quietly(Callable<Long> step) {
        try {
            step.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void delete(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
