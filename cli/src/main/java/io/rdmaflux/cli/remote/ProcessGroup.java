package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The remote shell's process and everything it started, ended together. The remote shell runs
 * through {@code setsid}, so it leads a process group (and session) of its own that its
 * children inherit: ssh's {@code ProxyCommand}, the commands of an {@code -e} wrapper script.
 * Killing only the shell's PID would leave them running (a hung {@code ProxyCommand} outlived
 * the tool); signals here go to the whole group, SIGTERM first and SIGKILL after a grace, so a
 * process that ignores SIGTERM still ends. Without {@code setsid} (not installed) the shell
 * runs in the tool's group as before and its descendants are signalled one by one.
 */
final class ProcessGroup {

    private static final Logger log = Loggers.getLogger(ProcessGroup.class);

    /** How long the group has after SIGTERM before it gets SIGKILL. */
    static final Duration TERM_GRACE = Duration.ofSeconds(2);
    /** Bound on waiting for setsid to take effect, for kill(1) to run, and for SIGKILL to end the group. */
    private static final long WAIT_MILLIS = 5_000;

    private static final Path PROC = Path.of("/proc");
    private static final String SETSID = find("/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid");

    private final Process leader;
    /** Whether {@link #leader}'s PID names a process group of its own. */
    private final boolean own;

    private ProcessGroup(Process leader, boolean own) {
        this.leader = leader;
        this.own = own;
    }

    /**
     * {@code argv}, run so that it leads a process group of its own (when setsid is there). A
     * program that cannot be found is left to fail to start as it is, so that the failure says
     * so (through setsid it would start, and exit 127 like a command missing on the remote host).
     */
    static List<String> command(List<String> argv) {
        if (SETSID == null || !Files.isDirectory(PROC.resolve("self")) || !runnable(argv.get(0))) {
            return argv;
        }
        List<String> out = new ArrayList<>(argv.size() + 1);
        out.add(SETSID);
        out.addAll(argv);
        return out;
    }

    /**
     * The group of {@code process}, started with {@link #command}: waits (bounded) until
     * setsid has made it a group leader, so that "-PID" names its group from then on.
     */
    static ProcessGroup of(Process process, List<String> argv) {
        if (argv.isEmpty() || !argv.get(0).equals(SETSID)) {
            return new ProcessGroup(process, false);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        long pause = 1;
        while (process.isAlive() && System.nanoTime() < deadline) {
            if (pgrp(PROC.resolve(Long.toString(process.pid()))) == process.pid()) {
                return new ProcessGroup(process, true);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pause = Math.min(2 * pause, 20);
        }
        // Exited already (its group may still hold what it started), or setsid was slow: the
        // PID is a group only if setsid ran, so check once more.
        boolean own = pgrp(PROC.resolve(Long.toString(process.pid()))) == process.pid() || !process.isAlive();
        return new ProcessGroup(process, own);
    }

    /** Whether any process of the group, the leader or one it left behind, is still running. */
    boolean alive() {
        if (!own) {
            return leader.isAlive() || leader.descendants().anyMatch(ProcessHandle::isAlive);
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC,
                p -> Character.isDigit(p.getFileName().toString().charAt(0)))) {
            for (Path p : procs) {
                if (pgrp(p) == leader.pid()) {
                    return true;
                }
            }
        } catch (IOException e) {
            log.debug("cannot list the processes of group {} ({})", leader.pid(), e.toString());
            return leader.isAlive();
        }
        return false;
    }

    /**
     * Ends the whole group: SIGTERM, then SIGKILL to what is left after {@link #TERM_GRACE};
     * returns once the group is gone or the wait for it ran out (bounded). Does nothing when
     * nothing of the group runs.
     */
    void terminate() {
        if (!alive()) {
            return;
        }
        signal("TERM");
        if (awaitGone(TERM_GRACE.toMillis())) {
            return;
        }
        log.debug("the process group of {} did not end after SIGTERM; sending SIGKILL", leader.pid());
        kill();
    }

    /** Sends SIGKILL to the whole group at once and waits (bounded) for it to be gone. */
    void kill() {
        signal("KILL");
        if (!awaitGone(WAIT_MILLIS)) {
            log.warn("the process group of {} did not end after SIGKILL", leader.pid());
        }
    }

    private boolean awaitGone(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long pause = 1;
        while (alive()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !alive();
            }
            pause = Math.min(2 * pause, 50);
        }
        return true;
    }

    private void signal(String name) {
        if (!own) {
            boolean force = name.equals("KILL");
            leader.descendants().forEach(h -> {
                if (force) {
                    h.destroyForcibly();
                } else {
                    h.destroy();
                }
            });
            if (force) {
                leader.destroyForcibly();
            } else {
                leader.destroy();
            }
            return;
        }
        // The JDK cannot signal a group; kill(1) can, in one system call, so nothing the group
        // starts meanwhile escapes. The group outlives its leader's exit as long as a member
        // does, and its id is not reused meanwhile.
        try {
            Process k = new ProcessBuilder("/bin/sh", "-c", "kill -s \"$1\" -- \"-$2\" 2>/dev/null", "rdflux-kill",
                    name, Long.toString(leader.pid())).redirectErrorStream(true).start();
            k.getOutputStream().close();
            if (!k.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                k.destroyForcibly();
            }
        } catch (IOException e) {
            log.debug("cannot run kill for group {} ({}); signalling the leader only", leader.pid(), e.toString());
            if (name.equals("KILL")) {
                leader.destroyForcibly();
            } else {
                leader.destroy();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code program} names an executable file, as a path or on the PATH, as exec finds it. */
    private static boolean runnable(String program) {
        if (program.contains("/")) {
            Path p = Path.of(program);
            return Files.isExecutable(p) && !Files.isDirectory(p);
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return true;
            }
        }
        return false;
    }

    /** The process group of /proc/PID, or -1 when it is gone or a zombie (which runs nothing). */
    private static long pgrp(Path proc) {
        try {
            String s = Files.readString(proc.resolve("stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return f[0].equals("Z") || f[0].equals("X") ? -1 : Long.parseLong(f[2]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static String find(String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }
}
