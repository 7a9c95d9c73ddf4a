package io.rdmaflux.cli;

// Over 500 lines: Transfer, the coordination of one run's ends, reads the command's options
// directly. Moving it into a class of its own means passing those options as one value first,
// which is the next change here (noted at stop 23).

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.PartialTransferException;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.builtin.TreeSourcePlugin;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code rdcp}: copies files and directory trees between hosts, as scp and rsync do, over the
 * channel. Each end is a pipeline ({@link CopyEnd}): a tree source with the codec stages and a
 * send sink where the files are, a receive source and a tree sink where they go, and for a
 * sync a listing of the destination sent back to the source first. Ends on other hosts run as
 * {@code rdflux agent} over ssh; the data flows between the ends directly, so a copy between
 * two remote hosts does not pass through this one.
 */
@Command(name = "rdcp", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = {"rdcp [OPTIONS] SRC... DST", "rdcp [OPTIONS] SRC... --to DEST [--to DEST]..."},
        description = {
            "Copy files and directory trees between hosts at link speed, over RDMA when both hosts have it "
                + "and TCP otherwise. SRC and DST are local paths or [user@]host:path, as for scp and rsync; "
                + "the hosts are reached with ssh (batch mode: key-based login), which starts 'rdflux agent' "
                + "there. Data flows directly between the two ends, also when both are remote.",
            "",
            "As rsync: 'rdcp -r dir host:dst' makes dst/dir when dst is an existing directory, and dst as "
                + "the copy otherwise; 'dir/' (trailing slash) copies what dir holds into dst. 'dst/' is a "
                + "directory, made when missing. Several SRCs "
                + "go into DST as a directory. Each file is verified by its checksum; in a directory that "
                + "existed, it is written under a temporary name and renamed once verified, in one the copy "
                + "creates under its own name. Modes and times are kept (sticky and setgid on directories too; "
                + "setuid and setgid are dropped from files, with a warning that counts them), symbolic links "
                + "copied as links."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  rdcp -r weights:huggingface/hub/models_dir worker:.cache/huggingface/hub/",
            "  # only what is missing or different:",
            "  rdcp --sync -r ingest-server:/videos/ ./videos/",
            "  rdcp -r --sync --delete --progress site/ web1:/srv/site/",
            "  rdcp --zstd --encrypt dump.sql backup:/dumps/",
            "  rdcp -e 'ssh -p 2222' -r data h1:",
            "",
            "An interrupted copy resumes: run the same command with --sync. A directory the copy creates gets its "
                + "name only when the copy ends (until then .rdflux-NAME.part beside it), so the re-run lands in the same "
                + "place; files that arrived are kept, and a large file cut part way is sent on from where it was cut, "
                + "once the receiving end checked the part it kept (.rdflux-NAME.part) against the source. -v ends "
                + "with what was sent: 'sent N bytes for M bytes of files written'.",
            "",
            "Exit 0 means every file was copied and verified. A source missing or unreadable, or a directory "
                + "without -r, is 66; a destination that cannot be created or written, 73 or 74."})
final class RdcpCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "SRC... DST", hideParamSyntax = true,
            description = "What to copy, and where: local paths or [user@]host:path (host: alone is the home "
                + "directory there). All SRCs are on one host.")
    List<String> args;

    @Option(names = "--to", paramLabel = "DEST", description = "Copy to several hosts at once (then give no DST): "
        + "each DEST as DST is, in a chain in the order given; each host writes the copy while it sends it on to "
        + "the next, so the source sends it once. A host that fails is named and the others complete (exit: the "
        + "first failed host's status). With --sync, a file is sent (to all) when any host lacks it or has it changed.")
    List<String> to;

    @Option(names = {"-r", "--recursive"}, description = "Copy directories, with everything below them.")
    boolean recursive;

    @Option(names = "--sync", description = "Copy only files whose size or modification time differ at the "
        + "destination (rsync's quick check); the others are left as they are.")
    boolean sync;

    @Option(names = {"-c", "--checksum"}, description = "Implies --sync: compare the files' contents (SHA-256, reads "
        + "every file on both ends) instead of size and time.")
    boolean checksum;

    @Option(names = "--delete", description = "Remove destination files that the source does not have, inside "
        + "the copied directories (so only with -r, and a directory SRC); never after any error.")
    boolean delete;

    @Mixin
    CopyHabits habits = new CopyHabits();

    @Mixin
    ZstdOption zstd = new ZstdOption();

    @Option(names = "--encrypt", description = "Encrypt with AES-256-GCM on the way, under a fresh random key "
        + "for this copy (the key always authenticates the connection; this also hides the data).")
    boolean encrypt;

    @Option(names = "--port", paramLabel = "PORT", description = "The port the receiving end listens on "
        + "(firewalls); with --sync the destination's listing goes to PORT+1. Default: one it picks. Not with --to.")
    Integer port;

    @Mixin
    ChannelFlags flags = new ChannelFlags();

    @Mixin
    RemoteOptions remote = new RemoteOptions();

    /** What a copy of these arguments does: where the files are and where they go, in the jobs' terms. */
    record Plan(RemoteHost sourceHost, Map<String, Object> source, RemoteHost destHost, String destPath,
                String name) {
    }

    @Override
    public Integer call() {
        Console.configure("rdcp", flags.verbose, flags.debug);
        checkOptions();
        if (to != null) {
            return Fanout.command(this, remote.shell(System.getenv()));   // one copy to many hosts
        }
        Plan plan = plan();
        habits.checkDelete(delete, plan);
        EntryNames names = new EntryNames(Console::outLine);
        RemoteShell shell = remote.shell(System.getenv());
        boolean local = plan.sourceHost() == null && plan.destHost() == null;
        Meter meter = new Meter();
        Transfer transfer = new Transfer(plan, shell, local, meter::streamStarted, names);
        if (flags.progress) {
            meter.startProgress(() -> transfer.show(meter));
        }
        int code = Runner.run(transfer.run());
        transfer.show(meter);
        meter.stop();
        if (code == ExitCode.OK && habits.dryRun) {
            Console.info("dry run: nothing was changed" + (delete ? "; " + names.deleted() + " to delete" : ""));
        } else if (code == ExitCode.OK && flags.verbose) {
            AgentMessage.Progress arrived = transfer.arrived();
            long kept = Math.max(0, arrived.keptFiles());
            Console.info("copied " + (arrived.files() < 0 ? meter.summary()
                    : meter.summary(arrived.files() - kept, Math.max(0, arrived.fileBytes()), kept))
                    + (delete ? "; " + names.deleted() + " deleted" : ""));
            // What crossed the wire (the meter counts holes as done): what a sync or resume saved.
            Console.info(SentLine.of(transfer.sent(), arrived.fileBytes()));
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }

    /**
     * Checks the options rdsend has too, as rdsend does, before any end starts: the ends would
     * refuse them later, in their pipelines' terms.
     */
    void checkOptions() {
        if (checksum) {
            sync = true;   // --checksum is a way of syncing
        }
        recursive |= habits.archive;   // as rsync's -a
        if (delete && !recursive) {
            throw new UsageException("--delete removes files inside copied directories: it needs -r (or -a)");
        }
        if (port != null) {
            Ports.check(port, true);
            if (sync && port == 65535) {
                throw new UsageException("bad port 65535: with --sync the destination's listing goes to PORT+1, "
                        + "so PORT may be at most 65534");
            }
            if (port == 0) {
                port = null;   // any free port, as without --port
            }
        }
        Codecs.chain(zstd.level, encrypt, flags.options().frameSize());
    }

    /** Checks the arguments: one host for all sources, a name for each, -r where needed. */
    Plan plan() {
        if (args.size() < 2) {
            throw new UsageException("missing arguments: expected SRC... DST");
        }
        List<RemoteHost.Location> locations = new ArrayList<>();
        for (String a : args) {
            if (a.isEmpty()) {
                throw new UsageException("an empty path");
            }
            try {
                locations.add(RemoteHost.location(a));
            } catch (IllegalArgumentException e) {
                // A host part ssh would misread ('-lroot@h1:x'): the user's words, so a usage error.
                throw new UsageException("'" + a + "': " + e.getMessage());
            }
        }
        RemoteHost.Location dst = locations.remove(locations.size() - 1);
        RemoteHost sourceHost = locations.get(0).host();
        List<String> paths = new ArrayList<>();
        for (RemoteHost.Location l : locations) {
            if (!Objects.equals(l.host(), sourceHost)) {
                throw new UsageException("all SRCs must be on one host: " + locations.get(0) + " and " + l + " are not");
            }
            paths.add(l.rest().isEmpty() ? "." : l.rest());
        }
        if (!flags.transport.equals(io.rdmaflux.transport.TransportKind.AUTO) && sourceHost == null && dst.isLocal()) {
            Console.info("a local copy uses no transport" + (sync ? " (--sync's listing comes over TCP on 127.0.0.1)" : "")
                    + "; --transport is ignored");
        }
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("type", "tree");
        String name = null;
        // A remote SRC's wildcards are expanded there, as scp's remote shell does; the matches go into DST.
        boolean glob = sourceHost != null && paths.stream().anyMatch(CopyHabits::hasWildcard);
        if (paths.size() == 1 && !glob) {
            String p = paths.get(0);
            source.put("path", p);
            name = nameOf(p);
            if (p.endsWith("/")) {
                source.put("directory", true);   // as cp: 'file/' is not a directory, an error
            }
        } else {
            for (String p : paths) {
                if (nameOf(p) == null) {
                    throw new UsageException("with several SRCs each is copied under its own name; '" + p
                            + "' has none (name the directory without a trailing slash, or copy it on its own)");
                }
            }
            source.put("paths", paths);
            source.put("glob", glob);
        }
        source.put("recursive", recursive);
        return new Plan(sourceHost, source, dst.host(), dst.rest().isEmpty() ? "." : dst.rest(), name);
    }

    /** The name a copy of {@code path} gets inside an existing directory; null when its contents are copied. */
    static String nameOf(String path) {
        if (path.endsWith("/")) {
            return null;
        }
        String last = path.substring(path.lastIndexOf('/') + 1);
        return last.isEmpty() || last.equals(".") || last.equals("..") || last.equals("~") ? null : last;
    }

    /** The codec stages these options name, for the sending end's job (rdcp's and --to's alike). */
    List<Object> stages() {
        List<Object> s = new ArrayList<>();
        if (zstd.level != null) {
            s.add(Map.of("type", "zstd", "level", zstd.level));
        }
        if (encrypt) {
            s.add(Map.of("type", AesGcmStage.NAME));
        }
        return s;
    }

    /** An agent's job: a source, the stages, a sink, and how much it tells back. */
    AgentMessage.Job job(Map<String, Object> source, List<Object> stages, Map<String, Object> sink,
                         long progress, int named) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source);
        if (!stages.isEmpty()) {
            m.put("stages", stages);
        }
        m.put("sink", sink);
        return new AgentMessage.Job(m, progress, flags.verbose, flags.debug, named);
    }

    /** A tree sink's or listing's DEST options (single copy and --to alike): the path, and the name to make inside an existing directory. */
    static Map<String, Object> destination(String type, Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("path", plan.destPath());
        if (plan.name() != null) {
            m.put("name", plan.name());
            if (plan.destPath().endsWith("/")) {
                m.put("directory", true);   // as rsync: DST/ is a directory, made when missing
            }
        }
        return m;
    }

    /**
     * One run of a plan: the ends, started and wired, and their outcome.
     *
     * <p>On a failure or a signal the ends in this process stop at once (telling their peers);
     * remote ends get {@link #REMOTE_REASON_WAIT} to end on their own and report why (what
     * their peer told them, or that their agent died) before they are stopped too: their own
     * reason line is printed beside the failure that ended the copy.
     */
    private final class Transfer {

        private static final java.time.Duration REMOTE_REASON_WAIT = java.time.Duration.ofSeconds(1);

        private final Plan plan;
        private final RemoteShell shell;
        private final boolean local;
        private final List<CopyEnd> ends = new ArrayList<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        /** Remote ends' failures that arrived before this side stopped them: their own reasons. */
        private final List<RemoteException> remoteReasons = new CopyOnWriteArrayList<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        private volatile boolean remotesStopped;
        // Read by the progress line's thread.
        private volatile CopyEnd sender;
        private volatile CopyEnd receiver;
        /** The data starts to flow: both ends are up (for -v's bandwidth, which leaves out ssh and the JVMs' start). */
        private final Runnable streamStart;
        /** Where the receiving end's names of files go (-v, -n). */
        private final EntryNames names;

        Transfer(Plan plan, RemoteShell shell, boolean local, Runnable streamStart, EntryNames names) {
            this.plan = plan;
            this.shell = shell;
            this.local = local;
            this.streamStart = streamStart;
            this.names = names;
        }

        Mono<Void> run() {
            return Mono.defer(() -> {
                String dataKey = AgentMessage.newKey();
                String listingKey = AgentMessage.newKey();
                long progress = flags.progress || flags.verbose ? 250 : 0;
                Map<String, Object> source = new LinkedHashMap<>(plan.source());
                if (flags.progress) {
                    source.put("count", true);
                }
                if (habits.bwlimit > 0) {
                    source.put("bwlimit", habits.bwlimit);
                }
                if (sync) {
                    source.put("sync", checksum ? "checksum" : "size-and-mtime");
                    source.put("key", listingKey);
                    source.put("bind", local ? "127.0.0.1" : "0.0.0.0");
                    channel(source, port == null ? 0 : port + 1, false);
                }
                Map<String, Object> treeSink = destination("tree", plan);
                treeSink.put("delete", delete);
                treeSink.put("dry-run", habits.dryRun);
                // -v and -n name files as rsync does, -vv the ones up to date as well.
                int named = flags.verbosity >= 2 ? 2 : flags.verbose || habits.dryRun ? 1 : 0;

                sender = end(plan.sourceHost());
                CopyEnd listing = sync ? end(plan.destHost()) : null;
                if (local) {
                    // One pipeline from tree to tree: no channel for the data.
                    receiver = sender;
                    sender.onEntry(names::print);
                    sender.start(job(source, List.of(), treeSink, progress, named));
                    streamStart.run();
                } else {
                    receiver = end(plan.destHost());
                    Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", dataKey));
                    channel(send, -1, true);
                    Map<String, Object> receive = new LinkedHashMap<>(Map.of("type", "receive", "key", dataKey));
                    channel(receive, port == null ? 0 : port, true);
                    if (encrypt) {
                        receive.put("require-encryption", true);
                    }
                    receiver.onEntry(names::print);
                    receiver.start(job(receive, List.of(), treeSink, progress, named));
                    sender.start(job(source, stages(), send, progress, 0));
                }
                if (listing != null) {
                    Map<String, Object> list = destination("tree-listing", plan);
                    list.put("checksums", checksum);
                    Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", listingKey));
                    channel(send, -1, false);
                    listing.start(job(list, List.of(), send, 0, 0));
                }
                List<Mono<Void>> wiring = new ArrayList<>();
                if (receiver != sender) {
                    wiring.add(wire(receiver, sender).doOnSuccess(v -> streamStart.run()));
                }
                if (listing != null) {
                    wiring.add(wire(sender, listing));
                }
                List<Mono<Void>> outcomes = new ArrayList<>();
                for (CopyEnd e : ends) {
                    outcomes.add(e.done().onErrorResume(t -> fail(t)));
                }
                for (Mono<Void> w : wiring) {
                    outcomes.add(w.onErrorResume(t -> fail(t)));
                }
                // A signal ends the copy like a failure, so that the remote ends can say why they stopped.
                Signals.streamUnderWay();
                reactor.core.Disposable onSignal = Signals.raised().subscribe(s -> fail(new RdmaFluxException(
                        ErrorCode.INTERRUPTED, "interrupted by " + Signals.name(s))));
                return Mono.when(outcomes).then(Mono.defer(this::outcome)).doFinally(s -> onSignal.dispose());
            }).doFinally(s -> ends.forEach(CopyEnd::abort));
        }

        private CopyEnd end(RemoteHost host) {
            CopyEnd e = CopyEnd.on(host, shell);
            ends.add(e);
            return e;
        }

        /** The channel options on a send or receive plugin; a port for a receiver (-1 for a sender). */
        private void channel(Map<String, Object> m, int port, boolean data) {
            if (port >= 0) {
                m.put(m.get("type").equals("tree") ? "listing-port" : "port", port);
            }
            // A local copy's only channel is the listing's, on 127.0.0.1: TCP, whatever --transport says.
            m.put("transport", local ? "tcp" : flags.transport.name().toLowerCase(java.util.Locale.ROOT));
            if (data && !m.get("type").equals("tree")) {
                m.put("frame-size", flags.frameSize);
                m.put("slots", flags.slots);
            }
        }

        /** Tells {@code from}'s send sink where {@code to}'s receiver listens, once it does. */
        private Mono<Void> wire(CopyEnd to, CopyEnd from) {
            return to.listening().flatMap(p -> to.addressFor(from).flatMap(a -> from.connect(a, p)));
        }

        private Mono<Void> fail(Throwable t) {
            Throwable e = reactor.core.Exceptions.unwrap(t);
            if (failures.isEmpty() || !(e instanceof PartialTransferException)) {
                failures.add(e);
            }
            if (e instanceof RemoteException r && !remotesStopped) {
                remoteReasons.add(r);
            }
            if (!partial(e) && stopping.compareAndSet(false, true)) {
                // Any other failure ends the copy: the other ends clean up and exit.
                for (CopyEnd end : ends) {
                    if (end instanceof CopyEnd.Local local) {
                        if (e instanceof RdmaFluxException p && p.code() == ErrorCode.INTERRUPTED) {
                            local.abort(p);   // the peers hear of the signal, not of a failure
                        } else {
                            local.abort();
                        }
                    }
                }
                Mono.delay(REMOTE_REASON_WAIT).subscribe(x -> {
                    remotesStopped = true;
                    ends.forEach(CopyEnd::abort);
                });
            }
            return Mono.empty();
        }

        /** Nothing failed: success; a partial transfer only: its files, named; else the first failure. */
        private Mono<Void> outcome() {
            if (failures.isEmpty()) {
                return Mono.empty();
            }
            // The end that failed says why; what its peer heard of it ("receiver reported: ...")
            // is the same news second hand, and is said only when nothing better is known.
            // After a signal, the signal is the cause: a connection it cut (ssh, sharing the
            // terminal, got the Ctrl-C too) is no news.
            boolean interrupted = Signals.received() != null;
            Throwable first = failures.stream().filter(t -> interrupted && t instanceof RdmaFluxException p
                            && p.code() == ErrorCode.INTERRUPTED).findFirst()
                    .or(() -> failures.stream().filter(t -> !partial(t) && !secondHand(t)).findFirst())
                    .or(() -> failures.stream().filter(t -> !partial(t)).findFirst())
                    .orElse(failures.get(0));
            Set<String> said = new HashSet<>(Set.of(Console.message(first)));
            // After a signal, what each remote end did about it (its partial files removed) is news.
            for (RemoteException r : remoteReasons) {
                if (interrupted && r.kind() == RemoteException.Kind.LOST) {
                    continue;
                }
                if (!partial(r) && (interrupted || !secondHand(r)) && said.add(Console.message(r))) {
                    Console.error(r);
                }
            }
            if (partial(first)) {
                List<String> lines = first instanceof RemoteException r ? r.failures()
                        : ((PartialTransferException) first).failures();
                return Mono.error(Console.notCopied(lines));
            }
            return Mono.error(inRdcpTerms(first));
        }

        /** The tree source names its option for copying directories; rdcp's user knows it as -r. */
        private static Throwable inRdcpTerms(Throwable t) {
            String m = t.getMessage();
            if (m == null || !m.endsWith(TreeSourcePlugin.RECURSIVE_HINT)) {
                return t;
            }
            String said = m.substring(0, m.length() - TreeSourcePlugin.RECURSIVE_HINT.length()) + " (use -r to copy directories)";
            if (t instanceof RemoteException r) {
                return new RemoteException(r.kind(), r.host(), r.remoteStatus(),
                        said.substring((r.host() + ": ").length()), r.failures(), r.reportedByPeer());
            }
            return t instanceof ConnectorException c ? ConnectorException.source(c.reason(), said, c) : t;
        }

        private static boolean secondHand(Throwable t) {
            return t instanceof RemoteException r ? r.reportedByPeer() : RdmaFluxException.isReportedByPeer(t);
        }

        private boolean partial(Throwable t) {
            return t instanceof PartialTransferException || t instanceof RemoteException r
                    && r.kind() == RemoteException.Kind.JOB_FAILED && r.remoteStatus() == ExitCode.PARTIAL;
        }

        /** What the receiving end has in place: its files, their bytes, those a sync kept. */
        AgentMessage.Progress arrived() {
            return receiver == null ? new AgentMessage.Progress(0) : receiver.progress();
        }

        /** The tree stream's bytes the sending end sent: a hole's zeros, which never travel, not counted. */
        long sent() {
            return sender == null ? 0 : Math.max(0, sender.progress().bytes());
        }

        /** Puts the ends' progress into the meter: bytes sent, files in place, the source's totals. */
        void show(Meter meter) {
            CopyEnd from = sender;
            CopyEnd to = receiver;
            if (from == null || to == null) {
                return;
            }
            AgentMessage.Progress s = from.progress();
            AgentMessage.Progress r = to.progress();
            meter.set(s.logicalBytes());   // a sparse file's holes are done when passed
            meter.files(r.files(), s.totalFiles());
            meter.links(r.links());
            if (s.totalBytes() >= 0) {
                meter.total(s.totalBytes());
            }
        }
    }
}
