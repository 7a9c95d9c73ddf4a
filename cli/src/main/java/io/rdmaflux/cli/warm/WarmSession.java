package io.rdmaflux.cli.warm;

import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.remote.AgentSizing;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One ssh session served by the warm agent, over its connection from {@code rdflux-warm-client}.
 * The wire (docs/remote.md, "The warm agent"):
 * <ol>
 * <li>daemon: {@code rdflux-warm 1 PID\n}, first, before it reads anything (the client forwards
 *     nothing before it, so a daemon that closes at that moment loses no job: the client runs
 *     the JVM agent instead);</li>
 * <li>client: the session's context, a 4-byte big-endian length then NUL-terminated strings:
 *     {@code D}+working directory, {@code A}+each argument, {@code E}+each {@code NAME=VALUE}.
 *     An empty directory is a session with no shell of its own, a coordinator's connection
 *     forwarded over its shared ssh connection ({@code WarmRoute}): it runs in the daemon's
 *     directory, with the daemon's environment under the variables it sent;</li>
 * <li>daemon: {@code Y}, it serves the session, or {@code N}, the client runs the JVM agent
 *     (another working directory, arguments it does not know, no room for another session, a
 *     {@code --frame-size} and {@code --slots} whose buffers need more memory than a session has);</li>
 * <li>client: the session's stdin, raw, its end a shutdown of the write side; daemon: frames of
 *     a type byte, a 4-byte length and the bytes: {@code O} stdout, {@code E} stderr, {@code X}
 *     the exit status (4 bytes), last.</li>
 * </ol>
 */
public final class WarmSession {

    /** The greeting's start; then the daemon's pid and a newline. */
    static final String GREETING = "rdflux-warm 1 ";
    /** The longest context a client may send. */
    static final int MAX_CONTEXT = 1 << 20;
    private static final int MAX_FRAME = 1 << 16;

    /** The session's context, as the client sent it. */
    public record Context(String directory, List<String> args, Map<String, String> environment) {

        /** The value of {@code --hello} in the arguments, or null. */
        String nonce() {
            int i = args.indexOf("--hello");
            return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : null;
        }
    }

    /** What runs a session's agent: given its context and where its stderr lines go. */
    public interface Agents {
        /** The agent for a session. */
        Agent agent(Context context, PrintStream stderr, int session);

        /** The session's agent has returned. */
        void ended(Agent agent);

        /** This tool's version, for the hello. */
        String version();
    }

    private final SocketChannel channel;
    private final Object writing = new Object();

    WarmSession(SocketChannel channel) {
        this.channel = channel;
    }

    /** Greets; the daemon counts the session before, so it never closes under a greeted client. */
    void greet() throws IOException {
        write(ByteBuffer.wrap((GREETING + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
    }

    /**
     * Reads the context, says whether it serves it, runs the agent and sends its exit status;
     * closes the connection.
     *
     * @param room whether the daemon has room for it: without, it is declined
     */
    void serve(Agents agents, String daemonDirectory, String socket, int number, boolean room) {
        try (channel) {
            InputStream in = Channels.newInputStream(channel);
            Context context = forwarded(readContext(new DataInputStream(in)), daemonDirectory);
            if (!room || context == null || !context.directory().equals(daemonDirectory) || context.args().isEmpty()
                    || !context.args().get(0).equals("agent") || context.nonce() == null
                    || !fits(context.args(), WarmDaemon.sessionMemory())) {
                // Not ours to serve: the client starts the JVM agent with everything it had.
                write(ByteBuffer.wrap(new byte[] {'N'}));
                return;
            }
            write(ByteBuffer.wrap(new byte[] {'Y'}));
            // The agent's messages and stderr lines come from any thread (log records, commands'
            // stderr, a job's events), one of them maybe interrupted (Reactor interrupts a
            // cancelled task's thread): a blocking write on an interrupted thread closes the
            // channel, and the session with it. The session's own thread writes them, in order.
            ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "warm-session-" + number + "-writer");
                t.setDaemon(true);
                return t;
            });
            PrintStream out = new PrintStream(new Handed(new Frames('O'), writer), false, StandardCharsets.UTF_8);
            Agent agent = agents.agent(context, new PrintStream(new Handed(new Frames('E'), writer), true,
                    StandardCharsets.UTF_8), number);
            int status;
            try {
                status = agent.serve(in, out, context.environment(), agents.version(), context.nonce(), socket);
            } finally {
                agents.ended(agent);
                out.flush();
                writer.shutdown();
            }
            try {
                writer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            frame('X', ByteBuffer.allocate(4).putInt(status).array(), 0, 4);
        } catch (IOException e) {
            // The client went away: the agent saw its stdin end and tore the job down.
        }
    }

    /**
     * Whether a job of the frame size and slots the arguments name fits the memory a session
     * may use here: the limit bin/rdflux-launch would give an agent started with them. A
     * larger job is declined, and the JVM the client then starts is sized for it.
     */
    static boolean fits(List<String> args, long sessionMemory) {
        AgentSizing job = AgentSizing.of(args);
        // The defaults always fit: the daemon was sized for them, or by the user (RDFLUX_JAVA_OPTS).
        return job.equals(AgentSizing.DEFAULT) || job.launcherLimit(Runtime.getRuntime().availableProcessors()) <= sessionMemory;
    }

    /**
     * A forwarded session's context (no directory) completed: the daemon's directory, and its own
     * environment (what an ssh session of this user has: HOME, PATH, the locale...) under the
     * variables the coordinator sent ({@code SSH_CONNECTION}); any other context as it is.
     */
    static Context forwarded(Context context, String daemonDirectory) {
        if (context == null || !context.directory().isEmpty()) {
            return context;
        }
        Map<String, String> env = new LinkedHashMap<>(System.getenv());
        env.putAll(context.environment());
        return new Context(daemonDirectory, context.args(), env);
    }

    private static Context readContext(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_CONTEXT) {
            return null;
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            return null;
        }
        String directory = null;
        List<String> args = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                continue;
            }
            String item = new String(bytes, start, i - start, StandardCharsets.UTF_8);
            start = i + 1;
            if (item.isEmpty()) {
                return null;
            }
            String value = item.substring(1);
            switch (item.charAt(0)) {
                case 'D' -> directory = value;
                case 'A' -> args.add(value);
                case 'E' -> {
                    int eq = value.indexOf('=');
                    if (eq > 0) {
                        env.put(value.substring(0, eq), value.substring(eq + 1));
                    }
                }
                default -> {
                    return null;
                }
            }
        }
        return directory == null || start != bytes.length ? null : new Context(directory, List.copyOf(args), env);
    }

    private void frame(char type, byte[] b, int off, int len) throws IOException {
        synchronized (writing) {
            ByteBuffer head = ByteBuffer.allocate(5).put((byte) type).putInt(len).flip();
            write(head);
            write(ByteBuffer.wrap(b, off, len));
        }
    }

    private void write(ByteBuffer b) throws IOException {
        synchronized (writing) {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }
    }

    /** An output stream that hands copies of what is written to one thread, which writes them to {@code target}; dropped once it is shut down. */
    private static final class Handed extends OutputStream {
        private final OutputStream target;
        private final ExecutorService writer;

        Handed(OutputStream target, ExecutorService writer) {
            this.target = target;
            this.writer = writer;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            byte[] copy = java.util.Arrays.copyOfRange(b, off, off + len);
            try {
                writer.execute(() -> {
                    try {
                        target.write(copy);
                    } catch (IOException e) {
                        // The client went away: the session ends as its stdin does.
                    }
                });
            } catch (RejectedExecutionException e) {
                // A line after the session ended (a late log record): nobody to show it to.
            }
        }
    }

    /** An output stream that sends what is written as frames of one type. */
    private final class Frames extends OutputStream {
        private final char type;

        Frames(char type) {
            this.type = type;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, MAX_FRAME);
                frame(type, b, off, n);
                off += n;
                len -= n;
            }
        }
    }
}
