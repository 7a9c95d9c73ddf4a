package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.PartialTransferException;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.Plural;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * {@code rdcp SRC... --to DEST --to DEST...}: one copy to many hosts at about the time of one.
 * The ends form a chain in the order the DESTs are given: the source sends the tree once, to
 * the first host; each host's receiving end is a relay that verifies and writes the stream
 * while it sends it on to the next ({@code receive}'s {@code forward}); the last only writes.
 * A chain, not a tree: every link carries the stream once, so the source's link carries it
 * once and the time is one copy plus a hop's latency per host (see benchmarks.md).
 *
 * <p>A host that fails does not fail the others. One that cannot be reached is left out as the
 * chain is wired (its predecessor sends to the next one up); a relay whose next host dies goes
 * on writing, and one whose own disk fails goes on forwarding. A host killed mid-copy cuts the
 * stream to the hosts after it: those are fed again, in a chain of their own from the source,
 * once this one has ended. The exit status is then the first failed host's, and each failed
 * host is named with its reason.
 */
final class Fanout {

    /** Rounds at most: the first copy, and the hosts cut off by a failure fed again. */
    private static final int ROUNDS = 3;

    /** One destination: its own plan (where its tree sink writes), as the DEST was written. */
    record Target(RdcpCommand.Plan plan, String given) {

        String label() {
            return plan.destHost() == null ? "local " + plan.destPath() : plan.destHost().toString();
        }
    }

    private final RdcpCommand command;
    private final List<Target> targets;
    private final RemoteShell shell;
    private final Meter meter;
    private final EntryNames names;
    /** Each target's end in the round under way, for progress. */
    private final Map<Target, CopyEnd> current = new ConcurrentHashMap<>();
    /** What each target has in place at the end (the last round it took part in). */
    private final Map<Target, AgentMessage.Progress> arrived = new ConcurrentHashMap<>();
    private volatile CopyEnd source;

    Fanout(RdcpCommand command, List<Target> targets, RemoteShell shell, Meter meter, EntryNames names) {
        this.command = command;
        this.targets = List.copyOf(targets);
        this.shell = shell;
        this.meter = meter;
        this.names = names;
    }

    /**
     * rdcp's run with {@code --to}: the targets planned from {@code command}'s SRCs and each
     * DEST, the copy, its progress line and -v's lines; returns the exit code.
     */
    static int command(RdcpCommand command, RemoteShell shell) {
        if (command.port != null) {
            throw new UsageException("--port cannot be used with --to: in a chain each host's receiver listens on a "
                    + "free port of its own, which rdcp tells the host before it");
        }
        List<String> sources = List.copyOf(command.args);
        List<Target> targets = new ArrayList<>();
        try {
            for (String dest : command.to) {
                List<String> one = new ArrayList<>(sources);
                one.add(dest);
                command.args = one;
                RdcpCommand.Plan plan = command.plan();
                command.habits.checkDelete(command.delete, plan);
                targets.add(new Target(plan, dest));
            }
        } finally {
            command.args = sources;
        }
        EntryNames names = new EntryNames(Console::outLine);
        Meter meter = new Meter();
        Fanout fanout = new Fanout(command, targets, shell, meter, names);
        if (command.flags.progress) {
            meter.detail(fanout::hosts);
            meter.startProgress(fanout::show);
        }
        meter.streamStarted();
        int code = Runner.run(fanout.run());
        fanout.show();
        meter.stop();
        if (code == ExitCode.OK && command.habits.dryRun) {
            Console.info("dry run: nothing was changed");
        } else if (command.flags.verbose) {
            fanout.sayEachHost();
            if (code == ExitCode.OK) {
                Console.info("copied " + fanout.summary(meter) + " to " + Plural.count(targets.size(), "host")
                        + fanout.upToDate());
                // Once down the chain: what a sync saved shows against what each host wrote.
                Console.info(SentLine.of(fanout.sent(), fanout.written()));
                Console.stderr().println(meter.bandwidth());
            }
        }
        return code;
    }

    /** The copy to every target: completes when all have it; fails naming those that do not. */
    Mono<Void> run() {
        return Mono.defer(() -> {
            // A signal stops every host's part: the ends are aborted as a single copy's are.
            Signals.streamUnderWay();
            Map<Target, Throwable> failed = new LinkedHashMap<>();
            return rounds(targets, 1, failed).then(Mono.defer(() -> outcome(failed)));
        });
    }

    private Mono<Void> rounds(List<Target> chain, int round, Map<Target, Throwable> failed) {
        return new Round(chain).run().flatMap(r -> {
            if (r.whole() != null) {
                return Mono.error(r.whole());
            }
            List<Target> again = new ArrayList<>();
            r.failures().forEach((t, e) -> {
                if (r.cutOff().contains(t) && round < ROUNDS && Signals.received() == null) {
                    again.add(t);
                } else {
                    failed.put(t, e);
                }
            });
            if (again.isEmpty()) {
                return Mono.empty();
            }
            Console.info("feeding again the host" + (again.size() == 1 ? "" : "s") + " cut off by a failure: "
                    + String.join(", ", again.stream().map(Target::label).toList()));
            return rounds(again, round + 1, failed);
        });
    }

    /** Every target has the copy: success; else each failed one named, and the first one's status. */
    private Mono<Void> outcome(Map<Target, Throwable> failed) {
        if (failed.isEmpty()) {
            return Mono.empty();
        }
        if (failed.size() == 1 && targets.size() == 1) {
            return Mono.error(failed.values().iterator().next());
        }
        if (failed.values().stream().allMatch(Fanout::partial)) {
            // Some files of the source could not be read: every host lacks them, as a single copy would.
            Throwable first = failed.values().iterator().next();
            return Mono.error(Console.notCopied(first instanceof RemoteException r ? r.failures()
                    : ((PartialTransferException) first).failures()));
        }
        Throwable first = null;
        for (Map.Entry<Target, Throwable> e : failed.entrySet()) {
            Console.error(about(e.getKey(), e.getValue()));
            first = first == null ? e.getValue() : first;
        }
        List<String> hosts = failed.keySet().stream().map(Target::label).toList();
        int ok = targets.size() - failed.size();
        return Mono.error(new SegmentFailure(ExitCode.of(first), failed.size() + " of " + targets.size()
                + " destinations failed (" + String.join(", ", hosts) + "); "
                + (ok == 0 ? "none has the copy" : ok == 1 ? "the other has the copy" : "the other " + ok + " have the copy")));
    }

    /** A failure's line, beginning with its host (a remote end's message already does). */
    private static String about(Target t, Throwable e) {
        String m = Console.message(e);
        return e instanceof RemoteException ? m : t.label() + ": " + m;
    }

    private static boolean partial(Throwable t) {
        return t instanceof PartialTransferException || t instanceof RemoteException r
                && r.kind() == RemoteException.Kind.JOB_FAILED && r.remoteStatus() == ExitCode.PARTIAL;
    }

    /** Puts the source's progress into the meter; files counted at the slowest host. */
    void show() {
        CopyEnd from = source;
        if (from == null) {
            return;
        }
        AgentMessage.Progress s = from.progress();
        meter.set(s.logicalBytes());
        long least = Long.MAX_VALUE;
        for (CopyEnd e : current.values()) {
            least = Math.min(least, Math.max(0, e.progress().files()));
        }
        meter.files(least == Long.MAX_VALUE ? 0 : least, s.totalFiles());
        if (s.totalBytes() >= 0) {
            meter.total(s.totalBytes());
        }
    }

    /** Each host's files in place, for the progress line: "h1 12, h2 10, h3 9". */
    String hosts() {
        List<String> parts = new ArrayList<>();
        for (Target t : targets) {
            CopyEnd e = current.get(t);
            parts.add(t.label() + " " + (e == null ? "-" : Math.max(0, e.progress().files())));
        }
        return "files at " + String.join(", ", parts);
    }

    /** -v: a line for each host that has the copy. */
    void sayEachHost() {
        for (Target t : targets) {
            AgentMessage.Progress p = arrived.get(t);
            if (p != null) {
                long kept = Math.max(0, p.keptFiles());
                Console.info(t.label() + ": " + Plural.count(Math.max(0, p.files() - kept), "file") + ", "
                        + Math.max(0, p.fileBytes()) + " bytes in place at " + t.plan().destPath()
                        + (command.sync ? ", " + kept + " kept" : ""));
            }
        }
    }

    /** -v's summary: with --sync, the files written and their bytes (as a host wrote them), not the source's. */
    private String summary(Meter meter) {
        AgentMessage.Progress most = mostWritten();
        if (!command.sync || most == null || most.files() < 0) {
            return meter.summary();
        }
        return meter.summary(most.files() - Math.max(0, most.keptFiles()), Math.max(0, most.fileBytes()), 0);
    }

    /** With --sync: "; N files already up to date", the files every host kept. */
    private String upToDate() {
        AgentMessage.Progress most = mostWritten();
        long kept = command.sync && most != null ? Math.max(0, most.keptFiles()) : 0;
        return kept > 0 ? "; " + Plural.count(kept, "file") + " already up to date" : "";
    }

    private AgentMessage.Progress mostWritten() {
        return arrived.values().stream().max(java.util.Comparator.comparingLong(AgentMessage.Progress::fileBytes))
                .orElse(null);
    }

    /** The most file bytes a host wrote (every host of a whole chain writes the same). */
    long written() {
        return arrived.values().stream().mapToLong(p -> Math.max(0, p.fileBytes())).max().orElse(0);
    }

    /** The bytes the source sent, over all rounds' last. */
    long sent() {
        CopyEnd from = source;
        return from == null ? 0 : Math.max(0, from.progress().bytes());
    }

    /** What a round ended with: per failed target its failure, those cut off by another's; or a failure of the whole. */
    private record Outcome(Map<Target, Throwable> failures, List<Target> cutOff, Throwable whole) {
    }

    /** One chain: the source and the targets, wired in order around those that cannot be reached. */
    private final class Round {

        private final List<Target> chain;
        private final List<CopyEnd> ends = new ArrayList<>();
        private final Map<CopyEnd, Throwable> failures = new ConcurrentHashMap<>();
        /** Ends whose receiver never listened (not reached, or refused the job): left out of the chain. */
        private final java.util.Set<CopyEnd> leftOut = ConcurrentHashMap.newKeySet();
        /** Ends stopped because their sender failed before their stream began: cut off, not failed on their own. */
        private final java.util.Set<CopyEnd> orphaned = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean stopping = new AtomicBoolean();

        Round(List<Target> chain) {
            this.chain = chain;
        }

        Mono<Outcome> run() {
            return Mono.defer(() -> {
                String key = AgentMessage.newKey();
                RdcpCommand.Plan first = chain.get(0).plan();
                CopyEnd from = CopyEnd.on(first.sourceHost(), shell);
                source = from;
                ends.add(from);
                List<CopyEnd> receivers = new ArrayList<>();
                for (int i = 0; i < chain.size(); i++) {
                    CopyEnd to = CopyEnd.on(chain.get(i).plan().destHost(), shell);
                    ends.add(to);
                    receivers.add(to);
                    current.put(chain.get(i), to);
                }
                long progress = command.flags.progress || command.flags.verbose ? 250 : 0;
                int named = command.flags.verbosity >= 2 ? 2 : command.flags.verbose || command.habits.dryRun ? 1 : 0;
                for (int i = 0; i < chain.size(); i++) {
                    CopyEnd to = receivers.get(i);
                    if (i == 0) {
                        to.onEntry(names::print);   // -v names each file once, as the first host writes it
                    }
                    to.start(jobs().receiver(key, chain.get(i).plan(), i < chain.size() - 1, progress, named));
                }
                String listingKey = AgentMessage.newKey();
                from.start(jobs().sender(key, first, progress, listingKey, chain.size()));
                List<CopyEnd> listers = new ArrayList<>();
                List<Mono<Void>> standIns = new ArrayList<>();
                if (command.sync) {
                    // Each host lists its DEST to the source, which sends what any of them lacks.
                    for (Target t : chain) {
                        CopyEnd lister = CopyEnd.on(t.plan().destHost(), shell);
                        ends.add(lister);
                        listers.add(lister);
                        lister.start(jobs().lister(listingKey, t.plan()));
                        standIns.add(FanoutListings.standInOnFailure(lister, from, listingKey, command.flags.transport,
                                t.label()));
                    }
                }
                List<Mono<Void>> outcomes = new ArrayList<>();
                for (CopyEnd e : ends) {
                    outcomes.add(e.done().onErrorResume(t -> {
                        failures.putIfAbsent(e, reactor.core.Exceptions.unwrap(t));
                        return Mono.empty();
                    }));
                }
                outcomes.addAll(standIns);
                for (CopyEnd lister : listers) {
                    // A lister that cannot connect fails on its own; a stand-in then takes its place.
                    outcomes.add(from.listening().flatMap(p -> from.addressFor(lister).flatMap(a -> lister.connect(a, p)))
                            .onErrorResume(e -> Mono.empty()));
                }
                outcomes.add(wire(from, receivers));
                for (int i = 0; i < receivers.size() - 1; i++) {
                    outcomes.add(wire(receivers.get(i), receivers.subList(i + 1, receivers.size())));
                }
                reactor.core.Disposable onSignal = Signals.raised().subscribe(s -> stop(new RdmaFluxException(
                        ErrorCode.INTERRUPTED, "interrupted by " + Signals.name(s))));
                return Mono.when(outcomes).then(Mono.fromSupplier(() -> outcome(from, receivers)))
                        .doFinally(s -> onSignal.dispose());
            }).doFinally(s -> ends.forEach(CopyEnd::abort));
        }

        private FanoutJobs jobs() {
            return new FanoutJobs(command);
        }

        /**
         * Tells {@code from} where the first of {@code next} that listens is; one that never
         * does (its host not reached) is skipped: the chain closes around it. None: a relay
         * writes alone (port 0), the source has nobody to send to and is stopped.
         */
        private Mono<Void> wire(CopyEnd from, List<CopyEnd> next) {
            if (next.isEmpty()) {
                if (from == source) {
                    from.abort();
                    return Mono.empty();
                }
                return from.connect("nowhere", 0).onErrorResume(e -> Mono.empty());
            }
            CopyEnd to = next.get(0);
            return to.listening().onErrorResume(e -> Mono.just(-1)).flatMap(port -> {
                if (port < 0) {
                    leftOut.add(to);
                    to.abort();
                    return wire(from, next.subList(1, next.size()));
                }
                return to.addressFor(from)
                        .onErrorResume(e -> {
                            // Not reachable from there: left out too, with that reason.
                            failures.putIfAbsent(to, e);
                            leftOut.add(to);
                            to.abort();
                            return wire(from, next.subList(1, next.size())).then(Mono.empty());
                        })
                        // A sender that failed to take the address reports its own failure.
                        .flatMap(a -> from.connect(a, port).onErrorResume(e -> Mono.empty())
                                .then(endIfSenderFails(from, to)));
            });
        }

        /**
         * A sender that fails before its receiver saw a stream leaves that receiver waiting for
         * nobody (up to {@link FanoutJobs#SENDER_WAIT}): it is ended at once, as cut off by the
         * failure before it. One whose stream had begun fails, or completes, on its own.
         */
        private Mono<Void> endIfSenderFails(CopyEnd from, CopyEnd to) {
            // A host that never listened was never in the chain: another one sends to "to".
            Mono<Boolean> inChain = from == ends.get(0) ? Mono.just(true)
                    : from.listening().map(p -> true).onErrorResume(x -> Mono.just(false));
            return from.done().onErrorResume(e -> inChain.doOnNext(sender -> {
                if (sender && !to.streamBegan() && !stopping.get() && Signals.received() == null) {
                    failures.putIfAbsent(to, new RdmaFluxException(ErrorCode.CANCELLED,
                            "nothing arrived: the end sending to it failed before its stream began"));
                    orphaned.add(to);
                    to.abort();
                }
            }).then());
        }

        /** Ctrl-C: every end stops; those in this process tell their peers of the signal. */
        private void stop(RdmaFluxException why) {
            if (stopping.compareAndSet(false, true)) {
                for (CopyEnd end : ends) {
                    if (end instanceof CopyEnd.Local local) {
                        local.abort(why);
                    } else {
                        end.abort();
                    }
                }
            }
        }

        /**
         * Sorts the failures: a source that failed on its own (its files, not its receiver)
         * fails the whole copy, as a single copy would; otherwise the first host of the chain
         * that failed, and any that was left out, failed on its own, and the hosts after that
         * first one (and any whose sender failed before its stream began) were cut off by it
         * and may be fed again.
         */
        private Outcome outcome(CopyEnd from, List<CopyEnd> receivers) {
            for (int i = 0; i < receivers.size(); i++) {
                AgentMessage.Progress p = receivers.get(i).progress();
                if (!failures.containsKey(receivers.get(i))) {
                    arrived.put(chain.get(i), p);
                }
            }
            Map<Target, Throwable> byTarget = new LinkedHashMap<>();
            List<Target> cutOff = new ArrayList<>();
            boolean firstSeen = false;
            Throwable firstFailure = null;
            for (int i = 0; i < receivers.size(); i++) {
                Throwable e = failures.get(receivers.get(i));
                if (e == null) {
                    continue;
                }
                byTarget.put(chain.get(i), e);
                if (leftOut.contains(receivers.get(i))) {
                    continue;
                }
                if (firstSeen || orphaned.contains(receivers.get(i))) {
                    cutOff.add(chain.get(i));
                } else {
                    firstSeen = true;
                    firstFailure = e;
                }
            }
            Throwable sourceFailure = failures.get(from);
            if (sourceFailure != null && Signals.received() == null
                    && (byTarget.size() == receivers.size() && byTarget.size() > leftOut.size()
                    && (firstFailure == null || secondHand(firstFailure)) || byTarget.isEmpty())) {
                return new Outcome(Map.of(), List.of(), sourceFailure);
            }
            if (byTarget.values().stream().allMatch(Fanout::partial)) {
                cutOff.clear();   // the source's files, not a host: feeding again would not help
            }
            return new Outcome(byTarget, cutOff, null);
        }

        private static boolean secondHand(Throwable t) {
            return t instanceof RemoteException r ? r.reportedByPeer() : RdmaFluxException.isReportedByPeer(t);
        }
    }
}
