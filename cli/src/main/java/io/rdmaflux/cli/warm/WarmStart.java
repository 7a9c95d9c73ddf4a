package io.rdmaflux.cli.warm;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.cli.remote.Detached;
import io.rdmaflux.cli.remote.LockFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Starts the warm agent's daemon for a place, detached: in a session of its own ({@code setsid}),
 * its standard streams on {@code /dev/null}, so that the ssh session that started it can end
 * (sshd waits for the command's streams) and no hang-up reaches it. It runs this JVM's own
 * command line (the same java, options and jar) with {@code agent --daemon}. An agent calls it
 * after its job, so the call that leaves the daemon pays only the fork.
 *
 * <p>The daemon serves sessions at once, each with the buffers of one agent: its direct-memory
 * limit is this agent's times the sessions it may serve at once ({@link #SESSIONS_ENV}, default
 * 4, fewer when that would pass 3/4 of the machine's memory), and it declines a session beyond
 * them ({@link WarmDaemon}). Its environment keeps only what the JVM itself needs: each session
 * brings its own, and must never see the one that started the daemon.
 */
public final class WarmStart {

    /** How many sessions a daemon serves at once (the agent's environment, which the coordinator's --rdflux-path may set). */
    public static final String SESSIONS_ENV = "RDFLUX_WARM_AGENT_SESSIONS";
    /** The daemon's system property: one session's direct memory, the limit of the agent that started it. */
    static final String SESSION_MEMORY = "rdflux.warm.session-memory";
    private static final int DEFAULT_SESSIONS = 4;
    private static final int MAX_SESSIONS = 64;
    /** What the daemon's JVM keeps of this agent's environment: what finds and runs its native parts, its locale. */
    private static final Set<String> KEPT = Set.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ",
            "TMPDIR", "LD_LIBRARY_PATH", "JAVA_HOME", "XDG_RUNTIME_DIR");

    private WarmStart() {
    }

    /**
     * Starts a daemon for {@code place} unless one holds it already; why not when it did not
     * (null when it started one or one was there).
     *
     * @param idle how long the daemon stays without a session
     */
    public static String start(WarmPlace place, Duration idle) {
        String why = io.rdmaflux.cli.remote.PrivateDirectory.ensure(place.dir());
        if (why != null) {
            return why;
        }
        if (!place.fits()) {
            return place.socket() + " is too long a path for a socket";
        }
        if (held(place)) {
            return null;
        }
        Optional<List<String>> command = command(place, idle, sessions(System.getenv(SESSIONS_ENV)),
                DirectMemory.limit());
        if (command.isEmpty()) {
            return "cannot tell this JVM's command line";
        }
        List<String> argv = new ArrayList<>();
        argv.add("setsid");
        argv.addAll(command.get());
        try {
            ProcessBuilder pb = new ProcessBuilder(argv);
            pb.environment().keySet().removeIf(k -> !KEPT.contains(k) && !k.startsWith("LC_"));
            Detached.start(pb);
            return null;
        } catch (IOException e) {
            return "cannot start it: " + e.getMessage();
        }
    }

    /**
     * Whether a daemon holds the place's lock now (a race with one starting is settled by its own
     * lock): the kernel's list of locks says, without the lock file being opened ({@link
     * LockFile}). Where that list cannot be read, looking takes the lock for a moment: a daemon
     * starting then tries again for a while ({@link WarmDaemon#lock}) rather than take the look
     * for a daemon that serves.
     */
    private static boolean held(WarmPlace place) {
        if (!Files.exists(place.lock())) {
            return false;
        }
        LockFile locks = LockFile.locksNow();
        if (locks != null) {
            return locks.held(place.lock());
        }
        try (FileChannel f = FileChannel.open(place.lock(), StandardOpenOption.WRITE);
             FileLock lock = f.tryLock()) {
            return lock == null;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** How many sessions at once: the setting when it is a number from 1 to 64, else 4; fewer when memory is short. */
    static int sessions(String setting) {
        int n = DEFAULT_SESSIONS;
        if (setting != null && setting.strip().matches("[0-9]{1,2}")) {
            n = Math.max(1, Math.min(MAX_SESSIONS, Integer.parseInt(setting.strip())));
        }
        long ram = io.rdmaflux.cli.remote.HostMemory.total();
        long one = DirectMemory.limit();
        if (ram > 0 && one > 0) {
            n = (int) Math.max(1, Math.min(n, ram / 4 * 3 / one));
        }
        return n;
    }

    /**
     * This JVM's command line up to {@code -jar JAR TOOL}, its direct-memory limit set to {@code
     * sessions x sessionMemory}, then {@code agent --daemon --warm SECONDS --warm-dir DIR}; empty
     * when it was not started with {@code -jar} (a test in-process).
     */
    static Optional<List<String>> command(WarmPlace place, Duration idle, int sessions, long sessionMemory) {
        ProcessHandle.Info info = ProcessHandle.current().info();
        Optional<String> java = info.command();
        Optional<String[]> args = info.arguments();
        if (java.isEmpty() || args.isEmpty()) {
            return Optional.empty();
        }
        List<String> a = List.of(args.get());
        int jar = a.indexOf("-jar");
        if (jar < 0 || jar + 2 >= a.size()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>();
        argv.add(java.get());
        for (String o : a.subList(0, jar)) {
            if (!o.startsWith("-XX:MaxDirectMemorySize=") && !o.startsWith("-D" + SESSION_MEMORY + "=")) {
                argv.add(o);
            }
        }
        argv.add("-XX:MaxDirectMemorySize=" + sessions * sessionMemory);
        argv.add("-D" + SESSION_MEMORY + "=" + sessionMemory);
        argv.addAll(a.subList(jar, jar + 3));
        argv.addAll(List.of("agent", "--daemon", "--warm", Long.toString(idle.toSeconds()),
                "--warm-dir", place.dir().toString()));
        return Optional.of(argv);
    }
}
