package io.rdmaflux.cli.standby;

import io.rdmaflux.cli.remote.LockFile;
import io.rdmaflux.cli.warm.PeerCheck;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One standby JVM's life: takes a free slot of its place, warms up, listens on the slot's socket
 * until its idle time is over, and serves the first connection of this user: greets it, reads
 * its {@link StandbyContext}, opens its streams ({@link ClientStreams}), says {@code Y} (or
 * {@code N}, and the client runs cold), and runs the call, which ends this process. One call
 * per process: the socket's name is gone and the listener closed before the greeting.
 */
public final class StandbyProcess {

    /** How long a connected client has to send its context. */
    static final Duration CONTEXT_WAIT = Duration.ofSeconds(10);

    /** What cli gives the standby: its warm-up, and how a call runs. */
    public interface Call {
        /** Loads and initialises what a call uses, touching no stream or file; may fail (ignored). */
        void warmUp();

        /**
         * Runs the call and ends the process; {@code beforeExit} must be run with the exit
         * status just before it ends (not when a second signal halts it).
         */
        void run(StandbyContext context, ClientStreams streams, IntConsumer beforeExit);
    }

    private final StandbyPlace place;
    private final Duration idle;
    private final Call call;
    private final Consumer<String> log;
    private final Path proc;

    /**
     * @param log  where it says why it serves nothing (its stderr, discarded unless debugging)
     * @param proc {@code /proc} (a test may give another)
     */
    public StandbyProcess(StandbyPlace place, Duration idle, Call call, Consumer<String> log, Path proc) {
        this.place = place;
        this.idle = idle;
        this.call = call;
        this.log = log;
        this.proc = proc;
    }

    /**
     * Serves one call (then the call ends the process) or none; returns the exit status when it
     * served none: 0 idle, no free slot or a client that went wrong; 1 no private place.
     */
    public int run() {
        String why = place.ensure();
        if (why != null) {
            log.accept("no standby: " + why);
            return 1;
        }
        try {
            StandbyPlace.Slot slot = place.take();
            if (slot == null) {
                return 0;   // SLOTS standbys wait for this key already
            }
            try {
                warmUp();
                SocketChannel client = accept(place.socket(slot.number()), slot);
                if (client == null) {
                    return 0;
                }
                serve(client, slot);
                return 0;
            } finally {
                place.release(slot);   // no call served; a second release does nothing
            }
        } catch (IOException e) {
            log.accept("standby: " + e.getMessage());
            return 0;
        }
    }

    private void warmUp() {
        try {
            call.warmUp();
        } catch (RuntimeException | LinkageError e) {
            log.accept("standby: warm-up: " + e);   // the call loads what is missing itself
        }
    }

    /**
     * Listens on {@code socket} until this user connects (that connection) or the idle time
     * ends (null). Either way the socket's name is removed and the listener closed.
     */
    private SocketChannel accept(Path socket, StandbyPlace.Slot slot) throws IOException {
        // A socket left by a standby that was killed: nobody listens on it, since its lock was free.
        Files.deleteIfExists(socket);
        // Ended while it waits (SIGTERM: no tool's handlers yet, so the JVM runs its hooks), it
        // removes the socket's name and its lock file's too (its lock goes as the process ends).
        Thread removeName = new Thread(() -> {
            deleteQuietly(socket);
            LockFile.removeName(place.lock(slot.number()));
        }, "standby-socket-clean-up");
        Runtime.getRuntime().addShutdownHook(removeName);
        try {
            return listen(socket);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(removeName);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs, or ran.
            }
        }
    }

    private SocketChannel listen(Path socket) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            AtomicBoolean taken = new AtomicBoolean();
            Deadline.after(idle, () -> {
                if (taken.compareAndSet(false, true)) {
                    deleteQuietly(socket);
                    closeQuietly(server);
                }
            });
            while (true) {
                SocketChannel c;
                try {
                    c = server.accept();
                } catch (IOException e) {
                    return null;   // closed: idle time over
                }
                if (!PeerCheck.sameUser(c)) {
                    log.accept("standby: refused a connection from another user");
                    closeQuietly(c);
                    continue;
                }
                if (!taken.compareAndSet(false, true)) {
                    closeQuietly(c);   // the idle time ended this very moment
                    return null;
                }
                deleteQuietly(socket);
                return c;
            }
        }
    }

    private void serve(SocketChannel client, StandbyPlace.Slot slot) throws IOException {
        StandbyContext context;
        ClientStreams streams;
        try (client) {
            write(client, ("rdflux-standby 1 " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII));
            try {
                context = StandbyContext.parse(ContextReader.read(client, CONTEXT_WAIT));
            } catch (IllegalArgumentException e) {
                log.accept("standby: the client's context is not understood: " + e.getMessage());
                return;
            }
            try {
                streams = ClientStreams.open(context, proc);
            } catch (IOException | RuntimeException e) {
                log.accept("standby: cannot open the client's streams: " + e.getMessage());
                write(client, new byte[] {'N'});
                return;
            }
            write(client, new byte[] {'Y'});
            ExitFrame frame = new ExitFrame(client, streams);
            frame.watch();
            call.run(context, streams, code -> {
                frame.send(code);
                // Our slot is free (its lock file gone) before the successor looks for one.
                place.release(slot);
                if (StandbySpawn.idle(System.getenv()).isPresent()) {
                    StandbySpawn.start(place, idle);
                }
            });
        }
    }

    static void write(SocketChannel c, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a name left behind is found stale by the next standby of the slot
        }
    }

    static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing left to do with it
        }
    }
}
