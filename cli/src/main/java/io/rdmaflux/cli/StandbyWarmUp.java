package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.AgentWarmUp;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.connector.ChannelSource;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.WriteTarget;
import io.rdmaflux.connector.tree.TreeReport;
import io.rdmaflux.connector.tree.TreeSink;
import io.rdmaflux.connector.tree.TreeSource;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.transport.TransportKind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What a standby JVM loads and initialises before it waits, so that its call does not: the
 * five tools' command lines (picocli reads a few hundred classes' annotations), one byte
 * sent through the tools' own path on loopback (Reactor, Netty's epoll event loop, the key
 * derivation and AES-GCM, the channel's protocol), from memory to nowhere, and a remote
 * rdcp's coordinator up to ssh ({@link #remoteCopy}), and a tiny tree packed and written
 * ({@link #treeCopy}, in a private temporary directory it removes, even when the JVM is ended
 * meanwhile: {@link WarmUpDirectory}): no standard stream and no
 * file of anyone's is touched.
 *
 * <p>Why both: on the 2-core VM under load (~7), a 1-byte rdsend -> rdrecv pair served by two
 * standbys took 2.8 s with no warm-up, 2.2 s with the command lines alone, 0.2-0.4 s with both
 * (4.1-4.5 s cold); the warm-up costs ~0.4, ~0.9 and ~2.3 s of CPU before the standby listens,
 * paid while it waits, not by a call.
 */
final class StandbyWarmUp {

    /** The tools, as a call names them. */
    private static final String[] TOOLS = {"rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux"};
    /** A bound on the loopback byte; a warm-up that takes longer is left (the call loads what is missing). */
    private static final Duration LOOPBACK_WAIT = Duration.ofSeconds(10);
    /** The same bound for the tiny tree's copy. */
    private static final Duration TREE_WAIT = Duration.ofSeconds(10);
    /**
     * The tiny tree's shape: 320 files of 0-3 KiB in 32 directories. With C1 alone (rdcp and the
     * agent) a method is compiled after ~200 calls, so 20 files left the per-file path of the walk,
     * the packer, the parser and the writers interpreted for a call's first few hundred files.
     */
    static final int TREE_DIRECTORIES = 16;
    static final int TREE_FILES_EACH = 20;

    private StandbyWarmUp() {
    }

    /** All parts. */
    static void run() {
        commandLines();
        loopbackByte();
        rdmaProbe();
        remoteCopy();
        treeCopy(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * Whether RDMA is usable here, asked once (its native library copied out of the jar and
     * loaded, the devices looked at) and kept for the call: a served call's transport choice
     * otherwise spent ~25 ms on it between the remote receiver's port and the connect. Asked,
     * not selected: the "RDMA not usable" line stays for the call that chooses a transport.
     */
    static void rdmaProbe() {
        try {
            io.rdmaflux.channel.Transports.rdmaUnavailableReason();
        } catch (RuntimeException | LinkageError e) {
            // The call that chooses a transport probes again, and says what failed.
        }
    }

    /**
     * A tiny tree (directories, small files, a symlink) made in a private directory under
     * {@code under}, packed by the tree source and written by the tree sink in memory, as a
     * local {@code rdcp -r} does, then removed: an {@code rdcp -r} of many small files would
     * otherwise walk, pack, parse and write its first few hundred files interpreted. A failure
     * only means less is warm.
     *
     * @return whether the sink reported the whole tree written and everything made is gone
     */
    static boolean treeCopy(Path under) {
        WarmUpDirectory made;
        try {
            made = WarmUpDirectory.create(under);   // 0700: no one else's to read; removed even if the JVM is ended
        } catch (IOException | RuntimeException e) {
            return false;
        }
        Path dir = made.path();
        boolean copied = false;
        try (made) {
            Path src = dir.resolve("src");
            for (int d = 0; d < TREE_DIRECTORIES; d++) {
                Path sub = Files.createDirectories(src.resolve("lib" + d).resolve("dist"));
                for (int f = 0; f < TREE_FILES_EACH; f++) {
                    Files.write(sub.resolve("f" + f + ".js"), new byte[f * 150 + d]);
                }
            }
            Files.createSymbolicLink(src.resolve("link"), Path.of("lib0/dist/f1.js"));
            WarmUpDirectory.pauseForTests();
            TreeReport report = TreeSink.of(dir.resolve("dst")).writeTree(TreeSource.of(src).open()).block(TREE_WAIT);
            copied = report != null && report.complete() && report.files() == TREE_DIRECTORIES * TREE_FILES_EACH
                    && report.symlinks() == 1;
        } catch (Exception | LinkageError e) {
            // Warm-up only: the call loads whatever is missing.
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return made.removed() && copied;
    }

    /** The five tools' command lines, built and dropped. */
    static void commandLines() {
        for (String tool : TOOLS) {
            Main.commandLine(tool).getCommandSpec();
        }
    }

    /**
     * A remote rdcp's own path up to ssh and back, with no host: its command line parsed and
     * planned, its jobs built, and the coordinator's side of the agent protocol and of the ssh
     * process ({@link AgentWarmUp}). The command's object is dropped unrun: nothing global is
     * configured (the console, signals, the shared ssh directory). A failure only means less
     * is warm.
     *
     * @return whether it ran to its end
     */
    static boolean remoteCopy() {
        try {
            CommandLine rdcp = Main.commandLine("rdcp");
            rdcp.parseArgs("-e", "ssh -p 22", "--rdflux-path", "rdflux", "warm-up", "warm-up:.");
            RdcpCommand command = rdcp.getCommand();
            command.checkOptions();
            RdcpCommand.Plan plan = command.plan();
            Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", AgentMessage.newKey(),
                    "transport", "auto", "frame-size", 1 << 20, "slots", 16));
            AgentMessage.Job job = command.job(plan.source(), command.stages(), send, 0, 0);
            command.job(Map.of("type", "receive"), List.of(), RdcpCommand.destination("tree", plan), 0, 0);
            AgentWarmUp.run(RemoteShell.create().rsh("ssh -p 22").rdfluxPath("rdflux"), job);
            localEnd(job);
            return true;
        } catch (Exception | LinkageError e) {
            // Warm-up only: the call loads whatever is missing.
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }

    /**
     * The sending end's pipeline for {@code job}, built in this process as a call builds it and
     * not run: the plugin registry's first load (the service files, the codec stages) and the
     * job's configuration took ~15 ms of a served call, between the agent's hello and its
     * connect. The class path's plugins only (a user's plugin jars are the call's to load), and
     * a source that exists (this JVM's temporary directory: checked, never read).
     */
    private static void localEnd(AgentMessage.Job job) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Map<String, Object> pipeline = new LinkedHashMap<>(job.pipeline());
        Map<String, Object> source = new LinkedHashMap<>(Map.of("type", "tree", "path", tmp.toString(), "recursive", true));
        pipeline.put("source", source);
        Path noPlugins = tmp.resolve("rdflux-warm-up-no-plugins-" + ProcessHandle.current().pid());
        AgentPipelines.config(pipeline, io.rdmaflux.pipeline.plugin.PluginRegistry.load(noPlugins), true)
                .toPipeline(Mono.never(), io.rdmaflux.pipeline.plugin.ProcessContext.inherited());
    }

    /** One byte from memory through a receiving and a sending pipeline on 127.0.0.1, to a target that drops it. */
    static void loopbackByte() {
        byte[] key = "standby warm-up".getBytes(StandardCharsets.UTF_8);
        Sinks.One<InetSocketAddress> bound = Sinks.one();
        Mono<?> receive = Pipeline.from(ReceiveSource.create(0, key).bind("127.0.0.1").transport(TransportKind.TCP))
                .to(Sink.toTarget("warm-up", metadata -> new Dropped()))
                .listener(new PipelineListener() {
                    @Override
                    public void onListening(InetSocketAddress address) {
                        bound.tryEmitValue(address);
                    }
                })
                .run();
        Mono<?> send = Pipeline.from(ChannelSource.ofStream("warm-up", () -> new ByteArrayInputStream(new byte[] {1}), true))
                .to(SendSink.deferred(bound.asMono().map(a -> new InetSocketAddress("127.0.0.1", a.getPort())), key)
                        .transport(TransportKind.TCP))
                .run();
        Mono.when(receive, send).block(LOOPBACK_WAIT);
    }

    /** A write target that keeps nothing. */
    private static final class Dropped implements WriteTarget {
        @Override
        public void open() {
        }

        @Override
        public void write(ByteBuffer src) {
            src.position(src.limit());
        }

        @Override
        public String commit() {
            return "nowhere";
        }

        @Override
        public String abort() {
            return null;
        }

        @Override
        public String describe() {
            return "the warm-up's byte";
        }
    }
}
