package io.rdmaflux.cli.warm;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.cli.remote.LockFile;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The warm agent's daemon: one per user and install (its {@link WarmPlace}), holding the place's
 * lock for its whole life, so that of two that race to start one serves and the other exits (after
 * {@link #LOCK_WAIT}, since a starter's look may hold the lock a moment), and removing the lock
 * file as it ends ({@link LockFile}). It accepts connections on
 * the place's socket, refuses any whose peer is another user
 * ({@code SO_PEERCRED}; the private directory already keeps them out), greets each and serves
 * it on a thread of its own ({@link WarmSession}), many at once, but no more than its direct
 * memory holds: each session may take what one agent's JVM may ({@link WarmStart} sized the
 * limit for them), and a session beyond that is declined, so its client runs a JVM agent. Once no session has run for
 * its idle time it removes its socket, then closes it, then exits: a client that connected in
 * between gets no greeting and runs the JVM agent instead, so no job is lost and the daemon
 * never outlives its idle time by more than a moment.
 */
public final class WarmDaemon {

    /** How long a starting daemon tries the place's lock ({@link #lock}); a look holds it for microseconds. */
    static final Duration LOCK_WAIT = Duration.ofMillis(500);
    private static final long LOCK_RETRY_MS = 10;

    private final WarmPlace place;
    private final Duration idle;
    private final WarmSession.Agents agents;
    private final Consumer<String> log;
    private final Runnable warmUp;
    private final String directory = System.getProperty("user.dir");

    private final int maxSessions = maxSessions();

    private int sessions;
    /** Sessions served now (the declined ones are counted in {@code sessions} only). */
    private int running;
    private int served;
    private long lastActive = System.nanoTime();
    private boolean closing;
    private ServerSocketChannel server;

    /**
     * @param place  where it listens
     * @param idle   how long it stays without a session
     * @param agents what runs each session's agent
     * @param log    where it says why it did not start or refused a peer (the daemon's stderr: nowhere, unless debugging)
     */
    public WarmDaemon(WarmPlace place, Duration idle, WarmSession.Agents agents, Consumer<String> log) {
        this(place, idle, agents, log, () -> { });
    }

    /**
     * @param warmUp run once on a thread of its own as soon as the daemon listens: its first
     *               session would otherwise run the sink's code interpreted (a daemon starts
     *               right after the call that left it, so this is paid before its next call);
     *               it must touch nothing a session sees and may fail silently
     */
    public WarmDaemon(WarmPlace place, Duration idle, WarmSession.Agents agents, Consumer<String> log,
            Runnable warmUp) {
        this.place = place;
        this.idle = idle;
        this.agents = agents;
        this.log = log;
        this.warmUp = warmUp;
    }

    /**
     * Serves until idle for its idle time; returns when another daemon holds the place
     * or the directory is not private. Returns the exit status: 0 served or another serves, 1 could not.
     */
    public int run() {
        String why = io.rdmaflux.cli.remote.PrivateDirectory.ensure(place.dir());
        if (why != null || !place.fits()) {
            log.accept("no warm agent: " + (why != null ? why : place.socket() + " is too long for a socket"));
            return 1;
        }
        try {
            // Tried for up to LOCK_WAIT; a file its holder removed as it ended is followed (LockFile).
            FileLock lock = LockFile.take(place.lock(), f -> lock(f, LOCK_WAIT));
            if (lock == null) {
                return 0;   // another daemon holds the place and serves it
            }
            try (FileChannel lockFile = lock.channel()) {
                try {
                    return serve();
                } finally {
                    close();
                    // While it holds the lock (the channel closes after this): a daemon that opened
                    // the file meanwhile sees it is no longer named once it has the lock, and takes
                    // the new one (LockFile).
                    LockFile.removeName(place.lock());
                }
            }
        } catch (IOException e) {
            log.accept("no warm agent: " + e.getMessage());
            return 1;
        } finally {
            close();
        }
    }

    /** Listens on the place's socket and serves until idle; the place's lock is held. */
    private int serve() throws IOException {
        // A socket left by a daemon that was killed: nobody listens on it, since the lock was free.
        Files.deleteIfExists(place.socket());
        synchronized (this) {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(place.socket()));
        }
        Thread timer = new Thread(this::keepTime, "warm-agent-idle");
        timer.setDaemon(true);
        timer.start();
        // After the bind, so a client arriving meanwhile is served (a little slower), not sent to a JVM.
        Thread warming = new Thread(warmUp, "warm-agent-warm-up");
        warming.setDaemon(true);
        warming.start();
        acceptAll();
        return 0;
    }

    /**
     * The place's lock, or null when another daemon holds it. Tried again for up to {@code wait}:
     * where the kernel's list of locks cannot be read, a starter that looks whether a daemon
     * serves ({@link WarmStart#held}) holds the lock for a moment, and a daemon starting in that
     * moment must not take the look for a daemon and exit.
     */
    static FileLock lock(FileChannel lockFile, Duration wait) throws IOException {
        long end = System.nanoTime() + wait.toNanos();
        FileLock lock = lockFile.tryLock();
        while (lock == null && System.nanoTime() < end) {
            try {
                Thread.sleep(LOCK_RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            lock = lockFile.tryLock();
        }
        return lock;
    }

    private void acceptAll() {
        while (true) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (ClosedChannelException e) {
                return;   // closed when idle
            } catch (IOException e) {
                log.accept("warm agent: " + e.getMessage());
                return;
            }
            if (!PeerCheck.sameUser(c)) {
                log.accept("warm agent: refused a connection from another user");
                quietClose(c);
                continue;
            }
            WarmSession session = new WarmSession(c);
            int number;
            boolean room;
            synchronized (this) {
                if (closing) {
                    quietClose(c);
                    return;
                }
                sessions++;
                room = running < maxSessions;
                if (room) {
                    running++;
                }
                number = room ? ++served : 0;
            }
            Thread t = new Thread(() -> {
                try {
                    session.greet();
                    session.serve(agents, directory, place.socket().toString(), number, room);
                } catch (IOException e) {
                    quietClose(c);
                } finally {
                    ended(room);
                }
            }, room ? "warm-session-" + number : "warm-session-declined");
            t.start();
        }
    }

    private synchronized void ended(boolean served) {
        sessions--;
        if (served) {
            running--;
        }
        lastActive = System.nanoTime();
        notifyAll();
    }

    /** Waits for an idle time with no session, then closes: the socket's name first, so no new client finds it. */
    private synchronized void keepTime() {
        try {
            while (true) {
                long left = idle.toNanos() - (System.nanoTime() - lastActive);
                if (sessions == 0 && left <= 0) {
                    close();
                    return;
                }
                long wait = sessions > 0 ? idle.toMillis() : Math.max(1, left / 1_000_000);
                wait(wait);
            }
        } catch (InterruptedException e) {
            close();
        }
    }

    private synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        if (server == null) {
            return;   // it never listened: the socket there, if any, is another daemon's
        }
        try {
            Files.deleteIfExists(place.socket());
        } catch (IOException e) {
            // Closing anyway; the next daemon removes it.
        }
        quietClose(server);
    }

    /**
     * How many sessions fit at once: its direct-memory limit over one session's (the limit of the
     * agent that started it, a system property {@link WarmStart} sets); 4 without it (a daemon
     * started by hand, whose limit was not sized for them).
     */
    private static int maxSessions() {
        long one = Long.getLong(WarmStart.SESSION_MEMORY, 0);
        return one > 0 ? (int) Math.max(1, Math.min(Integer.MAX_VALUE, DirectMemory.limit() / one)) : 4;
    }

    /** The direct memory one session may use: the limit of the agent that started it, else a quarter of its own. */
    static long sessionMemory() {
        long one = Long.getLong(WarmStart.SESSION_MEMORY, 0);
        return one > 0 ? one : DirectMemory.limit() / 4;
    }

    /** How many sessions it has served. */
    synchronized int served() {
        return served;
    }

    private static void quietClose(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // Nothing to do.
        }
    }
}
