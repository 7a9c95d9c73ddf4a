package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.PartialTransferException;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.builtin.TreeSourcePlugin;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * One run of an {@code rdcp} plan: the ends, started and wired, and their outcome. The
 * {@link RdcpCommand} parses the options and plans the copy; a transfer runs it, reading the
 * command's checked options.
 *
 * <p>On a failure or a signal the ends in this process stop at once (telling their peers);
 * remote ends get {@link #REMOTE_REASON_WAIT} to end on their own and report why (what
 * their peer told them, or that their agent died) before they are stopped too: their own
 * reason line is printed beside the failure that ended the copy.
 */
final class RdcpTransfer {

    private static final java.time.Duration REMOTE_REASON_WAIT = java.time.Duration.ofSeconds(1);

    /** The parsed and checked options of the copy. */
    private final RdcpCommand command;
    private final RdcpCommand.Plan plan;
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

    RdcpTransfer(RdcpCommand command, RdcpCommand.Plan plan, RemoteShell shell, boolean local, Runnable streamStart,
                 EntryNames names) {
        this.command = command;
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
            long progress = command.flags.progress || command.flags.verbose ? 250 : 0;
            Map<String, Object> source = new LinkedHashMap<>(plan.source());
            if (command.flags.progress) {
                source.put("count", true);
            }
            if (command.habits.bwlimit > 0) {
                source.put("bwlimit", command.habits.bwlimit);
            }
            if (command.sync) {
                source.put("sync", command.checksum ? "checksum" : "size-and-mtime");
                source.put("key", listingKey);
                source.put("bind", local ? "127.0.0.1" : "0.0.0.0");
                channel(source, command.port == null ? 0 : command.port + 1, false);
            }
            Map<String, Object> treeSink = RdcpCommand.destination("tree", plan);
            treeSink.put("delete", command.delete);
            treeSink.put("dry-run", command.habits.dryRun);
            // -v and -n name files as rsync does, -vv the ones up to date as well.
            int named = command.flags.verbosity >= 2 ? 2 : command.flags.verbose || command.habits.dryRun ? 1 : 0;

            sender = end(plan.sourceHost());
            CopyEnd listing = command.sync ? end(plan.destHost()) : null;
            if (local) {
                // One pipeline from tree to tree: no channel for the data.
                receiver = sender;
                sender.onEntry(names::print);
                sender.start(command.job(source, List.of(), treeSink, progress, named));
                streamStart.run();
            } else {
                receiver = end(plan.destHost());
                Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", dataKey));
                channel(send, -1, true);
                Map<String, Object> receive = new LinkedHashMap<>(Map.of("type", "receive", "key", dataKey));
                channel(receive, command.port == null ? 0 : command.port, true);
                if (command.encrypt) {
                    receive.put("require-encryption", true);
                }
                receiver.onEntry(names::print);
                receiver.start(command.job(receive, List.of(), treeSink, progress, named));
                sender.start(command.job(source, command.stages(), send, progress, 0));
            }
            if (listing != null) {
                Map<String, Object> list = RdcpCommand.destination("tree-listing", plan);
                list.put("checksums", command.checksum);
                Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", listingKey));
                channel(send, -1, false);
                listing.start(command.job(list, List.of(), send, 0, 0));
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
        m.put("transport", local ? "tcp" : command.flags.transport.name().toLowerCase(java.util.Locale.ROOT));
        if (data && !m.get("type").equals("tree")) {
            m.put("frame-size", command.flags.frame.frameSize);
            m.put("slots", command.flags.frame.slots);
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
