package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.SingleStreamServer;
import io.rdmaflux.cli.ExitCode;
import io.rdmaflux.cli.Files2;
import io.rdmaflux.cli.NothingLeftRunning;
import io.rdmaflux.cli.remote.RemoteException.Kind;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.testing.MarkedProcesses;
import io.rdmaflux.transport.TransportKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The agent and its launcher against a real OpenSSH server on 127.0.0.1/.2/.3 (hosts h1, h2,
 * h3), with the real tool ({@code bin/rdflux agent}) on the "remote" side. Every remote process
 * of a test carries the test's temporary directory in its command line (the wrapper that runs
 * the tool there, and a marker property), so "nothing left running" looks at those only.
 */
class RemoteAgentE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Path HOME = Path.of(System.getProperty("rdflux.home", "..")).toAbsolutePath().normalize();
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path tool;
    private final List<String> remoteLogs = new CopyOnWriteArrayList<>();

    @BeforeEach
    void wrapper() throws IOException {
        // The tool as the remote host runs it: this JDK, and a marker every agent JVM carries.
        tool = RemoteRdflux.in(dir);
    }

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    private RemoteShell shell() {
        return RemoteShell.create().rsh(sshd.rsh()).rdfluxPath(ShellWords.quote(tool.toString()))
                .log((host, line) -> remoteLogs.add(host + ": " + line));
    }

    @Test
    void pushesAFileToAnAgentAndPullsItBack() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 3 * 1048576 + 17, 1);
        Path remoteDir = Files.createDirectory(dir.resolve("dst dir"));
        // Spaces, quotes, a leading dash and non-ASCII: the path travels in the job, never through a shell.
        Path remote = remoteDir.resolve("-ünï côdé 'q' \"x\".bin");
        String key = AgentMessage.newKey();

        RemoteAgent h2 = shell().startAgent(RemoteHost.parse("h2"));
        try {
            h2.submit(job(receive(key), file(remote))).block(LIMIT);
            AgentMessage.Listening listening = h2.listening().block(LIMIT);
            String address = h2.dataAddress().block(LIMIT);
            assertThat(address).as("the address sshd was reached at").isEqualTo("127.0.0.2");
            assertThat(listening.transports()).contains("tcp");
            assertKeyInNoProcess(key, h2);
            FileSource source = FileSource.of(in);
            FluxSender.create().host(address).port(listening.port()).key(key).transport(TransportKind.TCP)
                    .send(source.metadata(), session -> source.open()).block(LIMIT);
            assertThat(h2.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
        } finally {
            h2.dispose();
        }
        assertThat(Files2.sha256(remote)).isEqualTo(Files2.sha256(in));

        // And back from h3, compressed and encrypted on the way, to a receiver here.
        Path back = dir.resolve("back.bin");
        String key2 = AgentMessage.newKey();
        SingleStreamServer local = FluxReceiver.create().host("0.0.0.0").port(0).key(key2).transport(TransportKind.TCP)
                .handle(s -> {
                    CodecChain chain = CodecChain.parse(s.metadata().codecs());
                    assertThat(chain.format()).startsWith("zstd").contains("aes-256-gcm");
                    return FileSink.of(back).write(chain.decode(s.receiveChunks(),
                            CodecContext.forSession(s.session(), key2)), s.metadata()).then();
                })
                .bindOne().block(LIMIT);
        var received = local.outcome().toFuture();
        RemoteAgent h3 = shell().startAgent(RemoteHost.parse("h3"));
        try {
            String coordinator = h3.hello().block(LIMIT).sshClient();
            assertThat(coordinator).isEqualTo("127.0.0.1");
            Map<String, Object> send = send(key2, coordinator, local.address().getPort());
            h3.submit(job(file(remote), List.of(Map.of("type", "zstd", "level", 3), Map.of("type", "aes-256-gcm")),
                    send)).block(LIMIT);
            assertThat(h3.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
            received.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            h3.dispose();
            local.dispose();
        }
        assertThat(Files2.sha256(back)).isEqualTo(Files2.sha256(in));
        assertThat(String.join("\n", remoteLogs)).doesNotContain(key).doesNotContain(key2);
    }

    @Test
    void relaysThroughAChainStartedInParallel() throws Exception {
        Path in = Files2.random(dir.resolve("in.bin"), 5 * 1048576 + 3, 2);
        Path out = dir.resolve("out.bin");
        String k1 = AgentMessage.newKey();
        String k2 = AgentMessage.newKey();
        // h1 relays to h3 (recompressing); both start at once, then h1 learns where h3 listens.
        RemoteAgent relay = shell().startAgent(RemoteHost.parse("h1"));
        RemoteAgent tail = shell().startAgent(RemoteHost.parse("h3"));
        try {
            Map<String, Object> deferred = new LinkedHashMap<>(Map.of("type", "send", "key", k2, "transport", "tcp"));
            relay.submit(job(receive(k1), List.of(Map.of("type", "zstd")), deferred)).block(LIMIT);
            tail.submit(job(receive(k2), file(out))).block(LIMIT);
            int tailPort = tail.listening().block(LIMIT).port();
            relay.connect(tail.dataAddress().block(LIMIT), tailPort).block(LIMIT);
            int relayPort = relay.listening().block(LIMIT).port();
            FileSource source = FileSource.of(in);
            FluxSender.create().host(relay.dataAddress().block(LIMIT)).port(relayPort).key(k1)
                    .transport(TransportKind.TCP).send(source.metadata(), session -> source.open()).block(LIMIT);
            assertThat(relay.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
            assertThat(tail.done().block(LIMIT).bytes()).isEqualTo(Files.size(in));
        } finally {
            relay.dispose();
            tail.dispose();
        }
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
    }

    @Test
    void aClosedPortIsOneLineNamingTheHostAndExit69() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        RemoteShell shell = shell().rsh(sshd.rsh() + " -p " + closed);
        RemoteException e = failure(shell.startAgent(RemoteHost.parse("h2")).hello());
        assertThat(e.kind()).isEqualTo(Kind.UNREACHABLE);
        assertThat(e.getMessage()).startsWith("h2: ssh connection refused").contains("sshd").doesNotContain("\n");
        assertThat(ExitCode.of(e)).isEqualTo(69);
    }

    @Test
    void aKeyTheServerDoesNotAuthorizeIsAnAuthenticationFailure() throws Exception {
        Path config = sshd.sshConfig(sshd.newKey("stranger-" + System.nanoTime()), "stranger-" + System.nanoTime());
        RemoteShell shell = shell().rsh("ssh -F " + ShellWords.quote(config.toString()));
        RemoteException e = failure(shell.startAgent(RemoteHost.parse("h1")).hello());
        assertThat(e.kind()).isEqualTo(Kind.AUTHENTICATION);
        assertThat(e.getMessage()).startsWith("h1: ssh could not log in without a password").contains("ssh-copy-id h1");
        assertThat(ExitCode.of(e)).isEqualTo(69);
    }

    @Test
    void aMissingRemoteToolNamesRdfluxPath() throws Exception {
        RemoteException bogus = failure(shell().rdfluxPath("/nonexistent/rdflux").startAgent(RemoteHost.parse("h3")).hello());
        assertThat(bogus.kind()).isEqualTo(Kind.TOOL_MISSING);
        assertThat(bogus.getMessage()).startsWith("h3: '/nonexistent/rdflux' not found there")
                .contains("No such file").contains("--rdflux-path");
        assertThat(ExitCode.of(bogus)).isEqualTo(69);

        // The default, rdflux on the remote PATH, is not installed on these "hosts".
        RemoteException onPath = failure(shell().rdfluxPath(RemoteShell.DEFAULT_TOOL).startAgent(RemoteHost.parse("h3"))
                .hello());
        assertThat(onPath.getMessage()).startsWith("h3: 'rdflux' not found there").contains("command not found");

        Path notExecutable = Files.writeString(dir.resolve("not-executable"), "#!/bin/sh\n");
        RemoteException cannotRun = failure(shell().rdfluxPath(notExecutable.toString())
                .startAgent(RemoteHost.parse("h3")).hello());
        assertThat(cannotRun.kind()).isEqualTo(Kind.TOOL_MISSING);
        assertThat(cannotRun.getMessage()).contains("cannot be run there").contains("Permission denied");
    }

    @Test
    void aRemoteShellThatPrintsBeforeTheAgentStartsIsTolerated() throws Exception {
        String key = AgentMessage.newKey();
        Path remote = dir.resolve("copy.bin");
        RemoteShell noisy = shell().rdfluxPath("echo 'Welcome to h2!'; echo '{\"looks\": \"like json\"}'; "
                + ShellWords.quote(tool.toString()));
        RemoteAgent h2 = noisy.startAgent(RemoteHost.parse("h2"));
        try {
            h2.submit(job(receive(key), file(remote))).block(LIMIT);
            int port = h2.listening().block(LIMIT).port();
            FluxSender.create().host("127.0.0.2").port(port).key(key).transport(TransportKind.TCP)
                    .send(Flux.just(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)))).block(LIMIT);
            h2.done().block(LIMIT);
        } finally {
            h2.dispose();
        }
        assertThat(Files.readString(remote)).isEqualTo("hello");
    }

    @Test
    void anAgentOfAnotherProtocolVersionIsRefused() throws Exception {
        // --rdflux-path is shell text, as rsync's --rsync-path: this one says hello in protocol 99,
        // with the nonce it was given (agent --hello NONCE), as an agent of any version does.
        RemoteShell other = shell().rdfluxPath("f() { echo \"{\\\"type\\\":\\\"hello\\\",\\\"protocol\\\":99,"
                + "\\\"version\\\":\\\"rdma-flux 9\\\",\\\"nonce\\\":\\\"$3\\\"}\"; }; f");
        RemoteException e = failure(other.startAgent(RemoteHost.parse("h1")).hello());
        assertThat(e.kind()).isEqualTo(Kind.TOOL_FAILED);
        assertThat(e.getMessage()).contains("agent protocol 99").contains("same version");
    }

    @Test
    void anAgentOfAnotherReleaseIsRefusedWithBothVersionsAndTheFix() throws Exception {
        // The same agent protocol, but a release whose major.minor differs from this one's.
        RemoteShell other = shell().rdfluxPath("f() { echo \"{\\\"type\\\":\\\"hello\\\",\\\"protocol\\\":1,"
                + "\\\"version\\\":\\\"rdma-flux 9.9.0 (protocol 1, Java 17)\\\",\\\"nonce\\\":\\\"$3\\\"}\"; }; f");
        RemoteException e = failure(other.startAgent(RemoteHost.parse("h1")).hello());
        assertThat(e.kind()).isEqualTo(Kind.TOOL_FAILED);
        assertThat(ExitCode.of(e)).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(e.getMessage()).isEqualTo("h1: rdflux there is 9.9.0 (protocol 1), this one " + ReleaseVersion.local()
                + ": run with --install-remote to run this version there, or install the same version on both hosts");
    }

    @Test
    void anAgentTooOldForTheHelloNonceIsToldApart() throws Exception {
        // What picocli makes an older rdflux say about --hello: a usage error, exit 64.
        RemoteShell old = shell().rdfluxPath("f() { echo \"rdflux: unknown option '$2'\" >&2; exit 64; }; f");
        RemoteException e = failure(old.startAgent(RemoteHost.parse("h1")).hello());
        assertThat(e.kind()).isEqualTo(Kind.TOOL_FAILED);
        assertThat(e.getMessage()).contains("does not take --hello").contains("same version");
    }

    @Test
    void anAgentTooOldForTheSizingWordsIsNamedWithItsVersionAndTheFix() throws Exception {
        // An rdflux from before --frame-size and --slots on 'agent': a real script there that answers
        // --version as that release would and refuses the two options as picocli makes it do (exit 64);
        // without them it is the agent it always was.
        Path old = dir.resolve("old rdflux");
        Files.writeString(old, "#!/bin/sh\n"
                + "case \" $* \" in\n"
                + "  *' --version '*) echo 'rdma-flux 0.0.9 (protocol 1, Java 17)'; exit 0 ;;\n"
                + "  *' --frame-size '*|*' --slots '*) echo \"rdflux: unknown option '--frame-size', '4194304', '--slots', "
                + "'16'\" >&2; echo \"rdflux: see 'rdflux agent --help'\" >&2; exit 64 ;;\n"
                + "esac\n"
                + "exec " + ShellWords.quote(tool.toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(old, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        RemoteShell shell = shell().rdfluxPath(ShellWords.quote(old.toString()));

        RemoteException e = failure(shell.sizing(new AgentSizing(4L << 20, 16)).startAgent(RemoteHost.parse("h1")).hello());
        assertThat(e.kind()).isEqualTo(Kind.TOOL_FAILED);
        assertThat(ExitCode.of(e)).isEqualTo(ExitCode.UNAVAILABLE);
        assertThat(e.getMessage()).isEqualTo("h1: '" + ShellWords.quote(old.toString()) + " agent' there (rdma-flux 0.0.9 "
                + "(protocol 1, Java 17)) does not take --frame-size and --slots, which this version gives it for sizes "
                + "other than the defaults: run with --install-remote to put this version there, or leave --frame-size "
                + "and --slots at their defaults (1M, 16)");

        // The fix the line names: at the default sizes the same rdflux starts.
        RemoteAgent atDefaults = shell.startAgent(RemoteHost.parse("h1"));
        try {
            assertThat(atDefaults.hello().block(LIMIT)).isNotNull();
        } finally {
            atDefaults.dispose();
            atDefaults.exited().block(LIMIT);
        }
    }

    @Test
    void aJobThatFailsThereReportsItsOwnStatus() throws Exception {
        Path remote = dir.resolve("no such dir").resolve("out.bin");
        RemoteAgent h2 = shell().startAgent(RemoteHost.parse("h2"));
        try {
            h2.submit(job(receive(AgentMessage.newKey()), file(remote))).block(LIMIT);
            RemoteException e = failure(h2.done());
            assertThat(e.kind()).isEqualTo(Kind.JOB_FAILED);
            assertThat(e.remoteStatus()).isEqualTo(73);
            assertThat(e.getMessage()).startsWith("h2: ").contains("no such dir");
            assertThat(ExitCode.of(e)).isEqualTo(73);
        } finally {
            h2.dispose();
        }
    }

    @Test
    void closingStdinWhileWaitingForASenderEndsTheAgent() throws Exception {
        RemoteAgent h1 = shell().startAgent(RemoteHost.parse("h1"));
        h1.submit(job(receive(AgentMessage.newKey()), file(dir.resolve("never.bin")))).block(LIMIT);
        h1.listening().block(LIMIT);
        h1.dispose();
        RemoteException e = failure(h1.done());
        assertThat(e.remoteStatus()).isEqualTo(75);
        assertThat(e.getMessage()).contains("coordinator");
        assertThat(dir.resolve("never.bin")).doesNotExist();
    }

    @Test
    void closingStdinMidTransferRemovesThePartialFileAndFailsTheSender() throws Exception {
        Transfer t = midTransfer("h2");
        t.agent().dispose();
        RemoteException e = failure(t.agent().done());
        assertThat(e.remoteStatus()).isEqualTo(75);
        assertThat(catchThrowable(() -> t.sender().get(LIMIT.toSeconds(), TimeUnit.SECONDS)))
                .as("the sender must fail, not succeed").isNotNull();
        t.agent().exited().block(LIMIT);
        assertNoOutput(t.remoteDir());
    }

    @Test
    void theSshClientKilledMidTransferEndsTheAgent() throws Exception {
        Transfer t = midTransfer("h3");
        ProcessHandle.of(t.agent().pid()).ifPresent(ProcessHandle::destroyForcibly);
        RemoteException e = failure(t.agent().done());
        assertThat(e.kind()).isEqualTo(Kind.LOST);
        assertThat(catchThrowable(() -> t.sender().get(LIMIT.toSeconds(), TimeUnit.SECONDS))).isNotNull();
        assertThat(awaitGone(Duration.ofSeconds(20))).isEmpty();
        assertNoOutput(t.remoteDir());
    }

    @Test
    void theCoordinatorKilledMidTransferLeavesNothingRunning() throws Exception {
        Path remoteDir = Files.createDirectory(dir.resolve("dst"));
        String key = AgentMessage.newKey();
        String classpath = HOME.resolve("cli/target/rdma-flux.jar") + ":" + HOME.resolve("cli/target/test-classes");
        Process coordinator = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, KilledCoordinator.class.getName(),
                sshd.rsh(), ShellWords.quote(tool.toString()), "h2", remoteDir.resolve("out.bin").toString(), key)
                .redirectError(dir.resolve("coordinator.stderr").toFile()).start();
        CompletableFuture<Void> sender;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(coordinator.getInputStream(),
                StandardCharsets.UTF_8))) {
            String[] listening = Mono.fromCallable(out::readLine)
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()).block(LIMIT).split(" ");
            assertThat(listening[0]).isEqualTo("LISTENING");
            // The data comes from here, so its connection outlives the coordinator: only the
            // agent's stdin ending can stop the transfer.
            sender = FluxSender.create().host(listening[1]).port(Integer.parseInt(listening[2])).key(key)
                    .transport(TransportKind.TCP).send(StreamMetadata.empty(), session -> endless()).toFuture();
            awaitPartialFile(remoteDir);
            assertThat(markedProcesses()).as("the agent runs").isNotEmpty();
            coordinator.destroyForcibly();
            coordinator.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            coordinator.destroyForcibly();
        }
        // Its ssh client sees stdin end, the agent sees its stdin end and cleans up, all exit.
        assertThat(catchThrowable(() -> sender.get(LIMIT.toSeconds(), TimeUnit.SECONDS)))
                .as("the sender must fail, not succeed").isNotNull();
        assertThat(awaitGone(Duration.ofSeconds(30))).as("left running").isEmpty();
        assertNoOutput(remoteDir);
    }

    @Test
    void anAgentPastItsStartTimeoutFailsButItsLoginRunsToItsEnd() throws Exception {
        Path lock = dir.resolve("login.lock");
        RemoteShell slow = shell().startTimeout(Duration.ofSeconds(2)).rdfluxPath(slowLogin(lock, 5));
        RemoteAgent h1 = slow.startAgent(RemoteHost.parse("h1"));
        RemoteException e = failure(h1.hello());
        assertThat(e.kind()).isEqualTo(Kind.TOOL_FAILED);
        assertThat(e.getMessage()).startsWith("h1: rdflux did not start within 2 s").contains("--start-timeout");
        // The command to try by hand is the one that ran, each word quoted for a shell (the tool's
        // path has a space, so --rdflux-path quotes it: quoting the whole again in '...' broke it).
        assertThat(e.getMessage()).contains("; check that "
                + ShellWords.join(slow.command(RemoteHost.parse("h1"), slow.agentCommand())) + " prints a hello line");
        assertThat(failure(h1.done()).getMessage()).isEqualTo(e.getMessage());
        h1.exited().block(LIMIT);
        assertThat(lock).as("the login's lock: left behind when ssh is killed mid-login").doesNotExist();
    }

    @Test
    void disposingAStartingAgentLetsItsLoginRunToItsEnd() throws Exception {
        Path lock = dir.resolve("login.lock");
        // Longer than the 10 s an agent that has started gets to end once its stdin is closed.
        RemoteAgent h2 = shell().rdfluxPath(slowLogin(lock, 12)).startAgent(RemoteHost.parse("h2"));
        long end = System.nanoTime() + LIMIT.toNanos();
        while (!Files.exists(lock) && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertThat(lock).as("the login is under way").exists();
        h2.dispose();
        h2.exited().block(LIMIT.multipliedBy(2));
        assertThat(lock).as("the login's lock: left behind when ssh is killed mid-login").doesNotExist();
    }

    @Test
    void rdfluxRshWithAQuotedConfigPathReplacesSsh() throws Exception {
        Path config = Files.copy(sshd.sshConfig(), dir.resolve("my ssh config"));
        // Its own environment, so the test JVM's RDFLUX_WARM_AGENT=no is said again: no daemon outlives the test.
        RemoteShell shell = RemoteShell.fromEnvironment(Map.of(RemoteShell.RSH_ENV, "ssh -F '" + config + "'",
                WarmAgents.ENV, "no"))
                .rdfluxPath(ShellWords.quote(tool.toString()));
        assertThat(shell.command(RemoteHost.parse("h1"), "x")).startsWith("ssh", "-F", config.toString());
        String key = AgentMessage.newKey();
        Path remote = dir.resolve("copy.bin");
        RemoteAgent h1 = shell.startAgent(RemoteHost.parse("h1"));
        try {
            h1.submit(job(receive(key), file(remote))).block(LIMIT);
            int port = h1.listening().block(LIMIT).port();
            FluxSender.create().host(h1.dataAddress().block(LIMIT)).port(port).key(key).transport(TransportKind.TCP)
                    .send(Flux.just(ByteBuffer.wrap("via -e".getBytes(StandardCharsets.UTF_8)))).block(LIMIT);
            h1.done().block(LIMIT);
        } finally {
            h1.dispose();
        }
        assertThat(Files.readString(remote)).isEqualTo("via -e");
    }

    // ---- helpers

    /**
     * The tool behind a login that takes {@code seconds}: as a shell's startup files that hold
     * a lock while they run and print to stderr (pyenv's rehash did), so that a login killed
     * half-way (its stderr gone) leaves {@code lock} behind. Returns it quoted for --rdflux-path.
     */
    private String slowLogin(Path lock, int seconds) throws IOException {
        Path login = dir.resolve("slow login");
        Files.writeString(login, "#!/bin/sh\n"
                + "touch " + ShellWords.quote(lock.toString()) + "\n"
                + "sleep " + seconds + "\n"
                + "echo 'startup files done' >&2\n"
                + "rm " + ShellWords.quote(lock.toString()) + "\n"
                + "exec " + ShellWords.quote(tool.toString()) + " \"$@\"\n");
        Files.setPosixFilePermissions(login, PosixFilePermissions.fromString("rwxr-xr-x"));
        return ShellWords.quote(login.toString());
    }

    /** An agent on {@code host} receiving endless data from here into a file, caught mid-way. */
    private record Transfer(RemoteAgent agent, CompletableFuture<Void> sender, Path remoteDir) {
    }

    private Transfer midTransfer(String host) throws Exception {
        Path remoteDir = Files.createDirectory(dir.resolve("dst"));
        String key = AgentMessage.newKey();
        RemoteAgent agent = shell().startAgent(RemoteHost.parse(host));
        agent.submit(job(receive(key), file(remoteDir.resolve("out.bin")))).block(LIMIT);
        int port = agent.listening().block(LIMIT).port();
        CompletableFuture<Void> sender = FluxSender.create().host(agent.dataAddress().block(LIMIT)).port(port).key(key)
                .transport(TransportKind.TCP).send(StreamMetadata.empty(), session -> endless()).toFuture();
        awaitPartialFile(remoteDir);
        return new Transfer(agent, sender, remoteDir);
    }

    private static Flux<Chunk> endless() {
        return Flux.generate(s -> s.next(Chunk.wrap(ByteBuffer.allocate(64 << 10))));
    }

    private static void assertNoOutput(Path remoteDir) throws IOException {
        try (Stream<Path> left = Files.list(remoteDir)) {
            assertThat(left.toList()).as("partial output left behind").isEmpty();
        }
    }

    /** Waits for the sink's temporary file, so that the stream is surely mid-way. */
    private static void awaitPartialFile(Path remoteDir) throws Exception {
        long end = System.nanoTime() + LIMIT.toNanos();
        while (System.nanoTime() < end) {
            try (Stream<Path> s = Files.list(remoteDir)) {
                if (s.anyMatch(p -> p.getFileName().toString().endsWith(".part"))) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no partial file appeared in " + remoteDir);
    }

    private static RemoteException failure(Mono<?> m) {
        Throwable t = catchThrowable(() -> m.block(LIMIT));
        assertThat(t).isInstanceOf(RemoteException.class);
        return (RemoteException) t;
    }

    /** The key appears in no command line and no environment of the processes involved. */
    private void assertKeyInNoProcess(String key, RemoteAgent agent) throws IOException {
        List<Long> pids = new ArrayList<>(markedProcesses());
        pids.add(agent.pid());
        assertThat(markedProcesses()).as("the agent's processes").isNotEmpty();
        for (long pid : pids) {
            for (String f : List.of("cmdline", "environ")) {
                Path p = Path.of("/proc", Long.toString(pid), f);
                if (Files.exists(p)) {
                    assertThat(new String(Files.readAllBytes(p), StandardCharsets.UTF_8)).as("%s of %d", f, pid)
                            .doesNotContain(key);
                }
            }
        }
    }

    /** This test's processes still running: its wrapper, ssh, the agent JVM (they name its directory). */
    private List<Long> markedProcesses() {
        return MarkedProcesses.find(dir.toString());
    }

    /** Waits for this test's processes to end; kills and returns those still there after {@code timeout}. */
    private List<String> awaitGone(Duration timeout) {
        return MarkedProcesses.awaitNone(dir.toString(), timeout);
    }

    private static AgentMessage.Job job(Map<String, Object> source, Map<String, Object> sink) {
        return job(source, List.of(), sink);
    }

    private static AgentMessage.Job job(Map<String, Object> source, List<Map<String, Object>> stages,
                                        Map<String, Object> sink) {
        return new AgentMessage.Job(Map.of("source", source, "stages", stages, "sink", sink), 0, false, false);
    }

    private static Map<String, Object> receive(String key) {
        return Map.of("type", "receive", "port", 0, "key", key, "transport", "tcp");
    }

    private static Map<String, Object> send(String key, String host, int port) {
        return Map.of("type", "send", "host", host, "port", port, "key", key, "transport", "tcp");
    }

    private static Map<String, Object> file(Path path) {
        return Map.of("type", "file", "path", path.toString());
    }
}
