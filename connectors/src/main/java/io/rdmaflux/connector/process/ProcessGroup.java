package io.rdmaflux.connector.process;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A process and everything it started, ended together. The process runs through
 * {@code setsid} ({@link #command}), so it leads a process group (and session) of its own that
 * its children inherit unless they leave it (setsid, setpgid): {@code sh -c 'a | b'}, ssh's
 * {@code ProxyCommand}, a background job. Killing only the leader's PID would leave them
 * running; signals here go to the whole group, in one {@code kill(2)} call, so nothing the
 * group starts meanwhile escapes. The group is alive while any member runs, also after its
 * leader exited ({@link #alive()}, read from {@code /proc}); a zombie runs nothing and does not
 * count.
 *
 * <p>Without {@code setsid} (util-linux not installed) or {@code /proc}, {@link #command}
 * leaves the program as it is, it runs in this JVM's group, and its descendants are signalled
 * one by one. Linux only; every wait here is bounded.
 */
public final class ProcessGroup {

    private static final Logger log = Loggers.getLogger(ProcessGroup.class);

    /** Bound on waiting for kill(1) to run, and for SIGKILL to end the group. */
    private static final long WAIT_MILLIS = 5_000;

    private static final Path PROC = Path.of("/proc");
    private static final String SETSID = find("/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid");

    /** How {@link #terminate} found or left the group. */
    public enum Ending {
        /** Nothing of the group was running. */
        GONE,
        /** It ended after SIGTERM, within the grace. */
        TERMINATED,
        /** It was sent SIGKILL after the grace. */
        KILLED
    }

    private final Process leader;
    /** Whether {@link #leader}'s PID names a process group of its own. */
    private final boolean own;
    /** Where the group's members are looked for: /proc (a copy of its layout in tests). */
    private final Path proc;
    /**
     * Set once a look found nothing of the group running. A group that is gone cannot come back
     * (only a member can add a process to it), and a new group with its id would be another's.
     */
    private volatile boolean gone;

    private ProcessGroup(Process leader, boolean own, Path proc) {
        this.leader = leader;
        this.own = own;
        this.proc = proc;
    }

    private ProcessGroup(Process leader, boolean own) {
        this(leader, own, PROC);
    }

    /** A group led by {@code leader} whose members are looked for under {@code proc} (for tests). */
    static ProcessGroup under(Path proc, Process leader) {
        return new ProcessGroup(leader, true, proc);
    }

    /** The path of {@code setsid}, if it is installed. */
    public static Optional<String> setsid() {
        return Optional.ofNullable(SETSID);
    }

    /**
     * {@code argv}, run so that it leads a process group of its own (when setsid and /proc are
     * there). A program that cannot be found is left to fail to start as it is, so that the
     * failure says so (through setsid it would start, and exit 127).
     */
    public static List<String> command(List<String> argv) {
        if (SETSID == null || !Files.isDirectory(PROC.resolve("self")) || !runnable(argv.get(0))) {
            return argv;
        }
        List<String> out = new ArrayList<>(argv.size() + 1);
        out.add(SETSID);
        out.addAll(argv);
        return out;
    }

    /**
     * The group of {@code process}, started with {@code argv} from {@link #command}: waits
     * (bounded) until setsid has made it a group leader, so that "-PID" names its group from
     * then on. When {@code argv} does not start with setsid, or setsid was too slow, the group is
     * the process and its descendants.
     */
    public static ProcessGroup of(Process process, List<String> argv) {
        if (argv.isEmpty() || !argv.get(0).equals(SETSID)) {
            return new ProcessGroup(process, false);
        }
        boolean own = awaitLeader(process, WAIT_MILLIS);
        // Exited already (its group may still hold what it started), or setsid was slow: the
        // PID is a group only if setsid ran, so check once more.
        return new ProcessGroup(process, own || pgrp(process.pid()) == process.pid() || !process.isAlive());
    }

    /**
     * The group of {@code process}, which was started through setsid: waits until setsid has
     * made it a group leader.
     *
     * @throws IOException when it exited first, or did not lead a group of its own within
     *                     {@code timeout}
     */
    public static ProcessGroup lead(Process process, Duration timeout) throws IOException {
        if (!awaitLeader(process, timeout.toMillis())) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("interrupted while starting");
            }
            throw new IOException("setsid did not give it a process group of its own");
        }
        return new ProcessGroup(process, true);
    }

    /** Whether the process leads its group by now; false when it exited first or the time ran out. */
    private static boolean awaitLeader(Process process, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long pause = 1;
        for (;;) {
            if (pgrp(process.pid()) == process.pid()) {
                return true;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            pause = Math.min(2 * pause, 20);
        }
    }

    /** The group's id: its leader's PID. */
    public long id() {
        return leader.pid();
    }

    /**
     * Whether any process of the group, the leader or one it left behind, is still running.
     * Looking means reading every process's stat in /proc (25-95 ms in a fresh JVM on a busy
     * 2-core host, at the end of every rdcp call): one look at a time, and none after the group
     * was found gone, so that a second caller (the tool's end, while the ssh process's exit
     * handler looks) waits for that answer instead of looking again.
     */
    public boolean alive() {
        if (gone) {
            return false;
        }
        synchronized (this) {
            if (!gone && !look()) {
                gone = true;
            }
            return !gone;
        }
    }

    private boolean look() {
        if (!own) {
            return leader.isAlive() || leader.descendants().anyMatch(ProcessHandle::isAlive);
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(proc,
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
     * Ends the whole group: SIGTERM, then SIGKILL to what is left after {@code grace}; returns
     * once the group is gone or the wait for it ran out (bounded), and how it ended.
     */
    public Ending terminate(Duration grace) {
        if (!alive()) {
            return Ending.GONE;
        }
        signal("TERM");
        if (awaitGone(grace.toMillis())) {
            return Ending.TERMINATED;
        }
        log.debug("the process group of {} did not end after SIGTERM; sending SIGKILL", leader.pid());
        kill();
        return Ending.KILLED;
    }

    /** Sends SIGKILL to the whole group at once and waits (bounded) for it to be gone. */
    public void kill() {
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
        boolean force = name.equals("KILL");
        if (!own) {
            leader.descendants().forEach(h -> {
                if (force) {
                    h.destroyForcibly();
                } else {
                    h.destroy();
                }
            });
            destroyLeader(force);
            return;
        }
        // The JDK cannot signal a group; kill(1) can, in one system call. The group outlives its
        // leader's exit as long as a member does, and its id is not reused meanwhile.
        try {
            Process k = new ProcessBuilder("/bin/sh", "-c", "kill -s \"$1\" -- \"-$2\" 2>/dev/null", "rdflux-kill",
                    name, Long.toString(leader.pid())).redirectErrorStream(true).start();
            k.getOutputStream().close();
            if (!k.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                k.destroyForcibly();
            }
        } catch (IOException e) {
            log.debug("cannot run kill for group {} ({}); signalling the leader only", leader.pid(), e.toString());
            destroyLeader(force);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void destroyLeader(boolean force) {
        if (force) {
            leader.destroyForcibly();
        } else {
            leader.destroy();
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

    private static long pgrp(long pid) {
        return pgrp(PROC.resolve(Long.toString(pid)));
    }

    /**
     * The process group of /proc/PID, or -1 when it is gone or a zombie (which runs nothing).
     * The fields after "(comm)" are state, ppid, pgrp; comm itself may hold spaces and ')'.
     */
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
