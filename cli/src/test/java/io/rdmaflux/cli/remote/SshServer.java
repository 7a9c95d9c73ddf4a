package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A real OpenSSH server on loopback for the tests of rdcp, rdpipe and the agent: its own host
 * key and authorized key in a temporary directory, a free port, listening on 127.0.0.1,
 * 127.0.0.2 and 127.0.0.3 (Linux routes all of 127/8 to lo), so that three "hosts" exist.
 * The client configuration it writes ({@link #sshConfig()}) names them {@code h1}, {@code h2}
 * and {@code h3}, trusts only this server's host key and logs in with the authorized key; pass
 * it with {@code -e "ssh -F CONFIG"} ({@link #rsh()}). It permits local forwards but on h3,
 * which refuses every forward. In JUnit tests use {@link SshFixture};
 * elsewhere (benchmarks) {@link #start()} and {@link #close()}.
 */
public class SshServer implements AutoCloseable {

    /** The addresses the server listens on; the client configuration calls them h1, h2, h3. */
    public static final List<String> ADDRESSES = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");

    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

    private Path dir;
    private Process sshd;
    private int port;
    private Path config;

    /** Starts a server; {@link #close()} stops it. */
    public static SshServer start() throws IOException {
        SshServer s = new SshServer();
        s.startServer();
        return s;
    }

    /** The directory holding the keys and configurations (removed by {@link #close()}). */
    public Path dir() {
        return dir;
    }

    /** The port sshd listens on, on all three addresses. */
    public int port() {
        return port;
    }

    /** The ssh client configuration: hosts h1, h2, h3, this server's host key, the authorized key. */
    public Path sshConfig() {
        return config;
    }

    /** The remote shell command that uses {@link #sshConfig()}, for {@code -e} or {@code RDFLUX_RSH}. */
    public String rsh() {
        return "ssh -F " + config;
    }

    /**
     * A startup file for every session's shell, as a user's ~/.bashrc is, without touching the
     * user's: bash runs it (it is the sessions' {@code BASH_ENV}) before the command, when it
     * exists. None by default; a test writes it (and removes it after) to play a login that
     * prints ("Welcome"). It should {@code unset BASH_ENV}, so that only the login shell runs it.
     */
    public Path startupFile() {
        return dir.resolve("startup.sh");
    }

    /** sshd's own log (its stderr). */
    public String log() {
        try {
            return Files.readString(dir.resolve("sshd.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<unreadable: " + e + ">";
        }
    }

    /** A client configuration like {@link #sshConfig()} but logging in with {@code identity}. */
    public Path sshConfig(Path identity, String name) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, clientConfig(identity), StandardCharsets.UTF_8);
        return p;
    }

    /** A new key pair that the server does not authorize; returns the private key's path. */
    public Path newKey(String name) throws IOException {
        Path key = dir.resolve(name);
        run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rdflux-test-" + name, "-f", key.toString()));
        return key;
    }

    /**
     * The processes of the sessions this server is serving now (sshd's session processes and
     * everything they started), for "nothing left running" checks.
     */
    public List<ProcessHandle> sessions() {
        return sshd == null ? List.of() : sshd.descendants().filter(ProcessHandle::isAlive).toList();
    }

    /** Waits until no session is left, at most {@code timeout}; returns what is still there. */
    public List<ProcessHandle> awaitNoSessions(Duration timeout) throws InterruptedException {
        return awaitEmpty(this::sessions, timeout);
    }

    /** Polls {@code probe} until it finds nothing, at most {@code timeout}; returns its last finding. */
    static <T> List<T> awaitEmpty(Supplier<List<T>> probe, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        List<T> left = probe.get();
        while (!left.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(50);
            left = probe.get();
        }
        return left;
    }


    /** Stops sshd and every session process, and removes the directory. */
    @Override
    public void close() {
        if (sshd != null) {
            // Sessions are children of sshd that outlive it: end them first, deepest last.
            List<ProcessHandle> all = new ArrayList<>(sshd.descendants().toList());
            all.forEach(ProcessHandle::destroy);
            sshd.destroy();
            try {
                for (ProcessHandle p : all) {
                    p.onExit().get(5, TimeUnit.SECONDS);
                }
                sshd.waitFor(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // Killed below.
            }
            all.forEach(ProcessHandle::destroyForcibly);
            sshd.destroyForcibly();
            sshd = null;
        }
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // A temporary directory; nothing depends on it.
            }
            dir = null;
        }
    }

    /**
     * Starts sshd and checks that each address takes a login.
     *
     * @throws IOException           when it cannot start, listen or log anyone in (the message says why)
     * @throws IllegalStateException when sshd is not installed
     */
    protected void startServer() throws IOException {
        if (!Files.isExecutable(SSHD)) {
            throw new IllegalStateException(SSHD + " is not installed");
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path privsep = Path.of("/run/sshd");
        if (root && !Files.isDirectory(privsep)) {
            // sshd running as root needs its privilege-separation directory (packages create it at boot).
            Files.createDirectories(privsep, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        }
        dir = Files.createTempDirectory("rdflux-sshd-");
        Path hostKey = dir.resolve("host_key");
        Path clientKey = dir.resolve("client_key");
        run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rdflux-test-host", "-f", hostKey.toString()));
        run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rdflux-test-client", "-f", clientKey.toString()));
        Path authorized = dir.resolve("authorized_keys");
        Files.copy(dir.resolve("client_key.pub"), authorized);
        Files.setPosixFilePermissions(authorized, PosixFilePermissions.fromString("rw-------"));
        String hostPub = Files.readString(dir.resolve("host_key.pub"), StandardCharsets.UTF_8).trim();
        String hostKeyType = hostPub.split(" ")[0] + " " + hostPub.split(" ")[1];

        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            port = freePort();
            StringBuilder known = new StringBuilder();
            for (String a : ADDRESSES) {
                known.append('[').append(a).append("]:").append(port).append(' ').append(hostKeyType).append('\n');
            }
            Files.writeString(dir.resolve("known_hosts"), known, StandardCharsets.UTF_8);
            Path sshdConfig = dir.resolve("sshd_config");
            Files.writeString(sshdConfig, serverConfig(hostKey, authorized, root), StandardCharsets.UTF_8);
            Path log = dir.resolve("sshd.log");
            sshd = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", sshdConfig.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                awaitListening();
                config = sshConfig(clientKey, "ssh_config");
                probe();
                return;
            } catch (IOException e) {
                last = e;
                killServer();
                if (!log().contains("Address already in use")) {
                    break;
                }
            }
        }
        throw last;
    }

    private void killServer() {
        if (sshd != null) {
            sshd.destroyForcibly();
            try {
                sshd.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sshd = null;
        }
    }

    private String serverConfig(Path hostKey, Path authorized, boolean root) {
        StringBuilder b = new StringBuilder();
        b.append("Port ").append(port).append('\n');
        for (String a : ADDRESSES) {
            b.append("ListenAddress ").append(a).append('\n');
        }
        b.append("HostKey ").append(hostKey).append('\n')
                .append("PidFile none\n")
                .append("AuthorizedKeysFile ").append(authorized).append('\n')
                .append("PubkeyAuthentication yes\n")
                .append("PasswordAuthentication no\n")
                .append("KbdInteractiveAuthentication no\n")
                // The keys live in a temporary directory under the world-writable /tmp.
                .append("StrictModes no\n")
                .append("UsePAM no\n")
                .append("UseDNS no\n")
                .append("PrintMotd no\n")
                .append("PrintLastLog no\n")
                .append("X11Forwarding no\n")
                // Local forwards only: the warm agent's route (WarmRouteE2ETest) forwards a Unix
                // socket, which OpenSSH 9.2 refuses too under "AllowTcpForwarding no".
                .append("AllowTcpForwarding local\n")
                .append("AllowAgentForwarding no\n")
                // rdpipe starts many sessions at once; sshd's default drops some beyond 10.
                .append("MaxStartups 100:30:200\n")
                // scp (SFTP by default since OpenSSH 9) for ComparisonTableE2ETest.
                .append("Subsystem sftp /usr/lib/openssh/sftp-server\n")
                // bash reads ~/.bashrc for a command run by sshd only as a top-level shell: this
                // machine's own rc files (a pyenv init whose stale rehash lock stalls every
                // login for 60 s, say) must not decide whether the tests pass. Tests give the
                // sessions a startup file of their own instead ({@link #startupFile()}).
                .append("SetEnv SHLVL=1 BASH_ENV=").append(startupFile()).append('\n');
        if (root) {
            b.append("PermitRootLogin prohibit-password\n");
        }
        // h3 refuses every forward, as a server with "AllowTcpForwarding no" or DisableForwarding
        // does, for the warm agent's route (WarmRouteE2ETest). Last: a Match block runs to the
        // end of the file.
        b.append("Match LocalAddress 127.0.0.3\n  AllowTcpForwarding no\n  AllowStreamLocalForwarding no\n");
        return b.toString();
    }

    private String clientConfig(Path identity) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ADDRESSES.size(); i++) {
            b.append("Host h").append(i + 1).append('\n').append("  HostName ").append(ADDRESSES.get(i)).append('\n');
        }
        b.append("Host *\n")
                .append("  Port ").append(port).append('\n')
                .append("  User ").append(System.getProperty("user.name")).append('\n')
                .append("  IdentityFile \"").append(identity).append("\"\n")
                .append("  IdentitiesOnly yes\n")
                .append("  IdentityAgent none\n")
                .append("  UserKnownHostsFile \"").append(dir.resolve("known_hosts")).append("\"\n")
                .append("  GlobalKnownHostsFile /dev/null\n")
                .append("  StrictHostKeyChecking yes\n")
                .append("  UpdateHostKeys no\n")
                .append("  BatchMode yes\n")
                .append("  ControlMaster no\n")
                .append("  ControlPath none\n");
        return b.toString();
    }

    private void awaitListening() throws IOException {
        long end = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (String a : ADDRESSES) {
            while (true) {
                if (!sshd.isAlive()) {
                    throw new IOException("sshd exited with status " + sshd.exitValue() + ": " + log().strip());
                }
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(a, port), 1000);
                    s.setSoTimeout(2000);
                    InputStream in = s.getInputStream();
                    byte[] banner = in.readNBytes(4);
                    if (new String(banner, StandardCharsets.US_ASCII).equals("SSH-")) {
                        break;
                    }
                } catch (IOException e) {
                    // Not listening yet.
                }
                if (System.nanoTime() > end) {
                    throw new IOException("sshd did not listen on " + a + ":" + port + " within "
                            + READY_TIMEOUT.toSeconds() + " s: " + log().strip());
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    /** One login, so that a server that listens but cannot log anyone in is found here. */
    private void probe() throws IOException {
        for (int i = 1; i <= ADDRESSES.size(); i++) {
            try {
                run(List.of("ssh", "-F", config.toString(), "h" + i, "true"));
            } catch (IOException e) {
                throw new IOException("ssh login to h" + i + " failed: " + e.getMessage() + "; sshd says: " + log().strip());
            }
        }
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command.get(0) + " did not finish within 30 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
