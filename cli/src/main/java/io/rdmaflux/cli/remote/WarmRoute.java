package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The way to a host's warm agent without a login: through a forward of the shared ssh
 * connection's master ({@code ssh -O forward -L LOCAL:REMOTE}) from a socket in this user's
 * private directory of masters to the daemon's socket there, set up once per master. A session
 * then costs a local connect and the warm agent's own greeting, not the remote login shell (its
 * startup files), the remote launcher and its client: about 100 ms of a tiny rdcp on a host whose
 * {@code ~/.bashrc} takes that long.
 *
 * <p>Where the daemon listens, and the addresses of the ssh connection (the agent's hello
 * reports them from {@code SSH_CONNECTION}, which a forwarded session has not), are learned from
 * the hello of an agent the daemon served through a login, and kept in a file beside the
 * masters' sockets, one per ssh command line, host and remote tool. The daemon checks the
 * connection is this user's (through sshd, it is) and serves it as it serves its client's
 * ({@code WarmSession}); the session runs in the daemon's directory with its environment.
 *
 * <p>Anything short of the daemon's yes leaves the call to its login as before, at the cost of a
 * failed connect or a few milliseconds: no shared connection or no master now, a server that
 * refuses forwarding, a daemon gone (its idle time over: the login starts a new one at the same
 * socket), one that declines (no room, other sizes). Only ssh with sharing does this, for
 * callers that asked ({@link WarmAgents#direct()}).
 */
final class WarmRoute {

    private static final Logger log = Loggers.getLogger(WarmRoute.class);

    /** How long {@code ssh -O forward} may take (the master answers at once). */
    static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(5);
    /** How long the daemon has to greet and say yes (it does in about a millisecond). */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(3);
    private static final String GREETING = "rdflux-warm 1 ";
    private static final String RECORD = "rdflux-warm-route 1";
    /** Socket paths put into {@code -L} as they are: absolute, no ':' or space, within a socket's 107 bytes. */
    private static final Pattern SOCKET = Pattern.compile("/[A-Za-z0-9/._+,@=-]{1,106}");

    private final RemoteHost host;
    /** ssh and its options, up to the destination. */
    private final List<String> ssh;
    private final String destination;
    /** What was learned: the daemon's socket and the connection's addresses. */
    private final Path record;
    /** The master's end of the forward. */
    private final Path local;

    private WarmRoute(RemoteHost host, List<String> ssh, String destination, Path record, Path local) {
        this.host = host;
        this.ssh = List.copyOf(ssh);
        this.destination = destination;
        this.record = record;
        this.local = local;
    }

    /**
     * The route to {@code host}'s warm agent for {@code shell}'s calls; null where there can be
     * none. {@code argv} is the command that starts the agent through a login
     * ({@link RemoteShell#command}): its words up to the destination make the forward's.
     */
    static WarmRoute of(RemoteShell shell, RemoteHost host, List<String> argv) {
        SshSharing sharing = shell.sharing();
        if (!shell.isSsh() || !shell.warm().isDirect() || !sharing.enabled()) {
            return null;
        }
        if (argv.stream().noneMatch(w -> w.startsWith("ControlPath=" + sharing.dir() + "/"))) {
            return null;   // the -e words share their own way, or the directory is not private
        }
        List<String> options = new ArrayList<>(argv.subList(0, argv.size() - 2));
        String key = key(String.join("\0", argv.subList(0, argv.size() - 1)) + "\0" + shell.agentCommand());
        return new WarmRoute(host, options, argv.get(argv.size() - 2), sharing.dir().resolve("w-" + key),
                sharing.dir().resolve("w-" + key + ".sock"));
    }

    private static String key(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What an agent's hello says of its warm agent and connection, kept for the next calls. */
    record Learned(String socket, String client, String server) {

        /** Whether it can be used: a socket path {@code -L} takes as it is, and the addresses as the hello checks them. */
        boolean usable() {
            return socket != null && SOCKET.matcher(socket).matches()
                    && (client == null || AgentMessage.isAddress(client)) && (server == null || AgentMessage.isAddress(server));
        }

        String text() {
            return RECORD + "\nsocket " + socket + "\nclient " + (client == null ? "-" : client)
                    + "\nserver " + (server == null ? "-" : server) + "\n";
        }

        static Learned parse(String text) {
            String[] lines = text.split("\n");
            if (lines.length != 4 || !lines[0].equals(RECORD) || !lines[1].startsWith("socket ")
                    || !lines[2].startsWith("client ") || !lines[3].startsWith("server ")) {
                return null;
            }
            Learned l = new Learned(lines[1].substring(7), orNull(lines[2].substring(7)), orNull(lines[3].substring(7)));
            return l.usable() ? l : null;
        }

        private static String orNull(String s) {
            return s.equals("-") ? null : s;
        }
    }

    /** Keeps what {@code hello} (of an agent started through a login) says, for the next calls. */
    void learn(AgentMessage.Hello hello) {
        Learned l = new Learned(hello.warmSocket(), hello.sshClient(), hello.sshServer());
        if (!l.usable() || l.equals(read())) {
            return;
        }
        try {
            Path tmp = Files.createTempFile(record.getParent(), record.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(tmp, l.text());
                Files.move(tmp, record, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
            log.debug("the warm agent on {} listens at {}; the next calls reach it through the shared ssh connection",
                    host, l.socket());
        } catch (IOException | UnsupportedOperationException e) {
            log.debug("cannot keep the warm agent's route to {}: {}", host, e.toString());
        }
    }

    private Learned read() {
        try {
            if (!Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            return Learned.parse(Files.readString(record, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Forgets what was learned: the socket there is not a warm agent's. */
    private void forget() {
        try {
            Files.deleteIfExists(record);
        } catch (IOException e) {
            // The next wrong greeting tries again.
        }
    }

    /**
     * A session of the warm agent for an agent with {@code args} (after the tool: {@code agent
     * --warm ... --hello NONCE}), reached through the forward; null when it cannot be had, and the
     * call then starts its agent through a login as before.
     */
    AgentProcess open(List<String> args) {
        Learned learned = read();
        if (learned == null) {
            return null;
        }
        SocketChannel connected = connect();
        if (connected == null && forward(learned.socket())) {
            connected = connect();
        }
        if (connected == null) {
            return null;
        }
        SocketChannel channel = connected;
        // Whoever sets it first decides: the daemon's answer, or the timer that gives up on a
        // daemon that does not answer in time (the forward's far end not accepting, say).
        AtomicBoolean decided = new AtomicBoolean();
        Disposable timer = Schedulers.parallel().schedule(() -> {
            if (decided.compareAndSet(false, true)) {
                closeQuietly(channel);
            }
        }, ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        try {
            String greeting = readLine(channel);
            if (greeting == null) {
                log.debug("no warm agent greeted through the forward to {} (gone, or forwarding refused there)", host);
                closeQuietly(channel);
                return null;
            }
            if (!greeting.startsWith(GREETING)) {
                log.debug("{} on {} is no warm agent; forgetting it", learned.socket(), host);
                forget();
                closeQuietly(channel);
                return null;
            }
            OutputStream out = Channels.newOutputStream(channel);
            out.write(context(args, learned));
            ByteBuffer yes = ByteBuffer.allocate(1);
            while (yes.hasRemaining()) {
                if (channel.read(yes) < 0) {
                    break;
                }
            }
            if (!decided.compareAndSet(false, true)) {
                log.debug("the warm agent on {} did not answer within {} s", host, ANSWER_TIMEOUT.toSeconds());
                closeQuietly(channel);
                return null;
            }
            if (yes.position() == 0 || yes.get(0) != 'Y') {
                log.debug("the warm agent on {} declined the session (no room, or other sizes)", host);
                closeQuietly(channel);
                return null;
            }
            return AgentProcess.session(host, channel);
        } catch (IOException e) {
            log.debug("reaching the warm agent on {} through the forward failed: {}", host, e.toString());
            closeQuietly(channel);
            return null;
        } finally {
            timer.dispose();
        }
    }

    private SocketChannel connect() {
        try {
            return SocketChannel.open(UnixDomainSocketAddress.of(local));
        } catch (IOException | RuntimeException e) {
            return null;   // no forward yet, or its master gone
        }
    }

    /**
     * Asks the master to forward our socket to {@code remote}; false when there is no master
     * (the call's login will start one) or it refused.
     */
    private boolean forward(String remote) {
        try {
            // The master binds without StreamLocalBindUnlink: a socket a master left when it ended
            // must go first. Nobody listens on it (the connect just failed); it is our own file.
            Files.deleteIfExists(local);
            List<String> argv = new ArrayList<>(ssh);
            argv.addAll(List.of("-O", "forward", "-L", local + ":" + remote, destination));
            Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(false).start();
            byte[] err = p.getErrorStream().readNBytes(1000);
            if (!p.waitFor(FORWARD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0) {
                log.debug("no forward to the warm agent on {}: {}", host,
                        io.rdmaflux.text.RemoteText.sanitize(new String(err, StandardCharsets.UTF_8).strip()));
                return false;
            }
            log.debug("forwarding {} to the warm agent on {} through the shared ssh connection", local, host);
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The session's context as WarmSession reads it: no directory (a forwarded session), the arguments, the addresses. */
    private static byte[] context(List<String> args, Learned learned) {
        java.io.ByteArrayOutputStream items = new java.io.ByteArrayOutputStream();
        items.writeBytes("D\0".getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            items.writeBytes(("A" + a + "\0").getBytes(StandardCharsets.UTF_8));
        }
        if (learned.client() != null && learned.server() != null) {
            // Ports are not used: the agent takes the addresses only.
            items.writeBytes(("ESSH_CONNECTION=" + learned.client() + " 0 " + learned.server() + " 0\0")
                    .getBytes(StandardCharsets.UTF_8));
        }
        byte[] body = items.toByteArray();
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    /** One line of at most 64 bytes, without its newline; null at the end of the stream or when too long. */
    private static String readLine(SocketChannel channel) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        StringBuilder line = new StringBuilder();
        while (line.length() < 64) {
            one.clear();
            if (channel.read(one) < 0) {
                return null;
            }
            char c = (char) (one.get(0) & 0xff);
            if (c == '\n') {
                return line.toString();
            }
            line.append(c);
        }
        return null;
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // Closing what failed.
        }
    }

    @Override
    public String toString() {
        return "WarmRoute[" + host + ", " + local + "]";
    }
}
