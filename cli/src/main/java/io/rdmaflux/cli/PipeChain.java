package io.rdmaflux.cli;

import io.rdmaflux.cli.PipePlan.Hop;
import io.rdmaflux.cli.PipePlan.Input;
import io.rdmaflux.cli.PipePlan.Output;
import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.RemoteAgent;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.connector.StdoutSink;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Runs one run of an rdpipe plan: every hop at once, remote ones through agents started over
 * ssh, local ones in this process; each receiving end binds a port of its own and reports it,
 * then its sender is told where to connect, with a key made for that link alone. The run ends
 * when every hop has ended. When one fails, the others get {@link #GRACE} to end on their own
 * (the channel tells each neighbour, so a chain usually collapses by itself), then whatever
 * still runs is torn down: agents' stdin closed (they kill their commands and exit), local
 * pipelines cancelled. Cancelling the Mono tears down at once.
 *
 * <p>The outcome is as {@code set -o pipefail}: the status of the rightmost hop that failed of
 * its own accord, a {@link SegmentFailure} naming it. A hop cut short (75) because another hop
 * failed is a consequence, and counts only when nothing else failed.
 *
 * <p>The meter (-v, --progress) counts the bytes of the busiest hop, as rdma-pipe's -v reports
 * the transfer: not what the last command printed ({@code wc -c} prints a few bytes of 1 GiB).
 */
final class PipeChain {

    private static final Logger log = Loggers.getLogger(PipeChain.class);

    /**
     * How long the other hops may take to end on their own after one failed: longer than a
     * command's wait to exit on its own once its input failed ({@code CommandFilter.INPUT_FAILED_WAIT}),
     * so that its own status reaches the verdict, as pipefail's rightmost failure.
     */
    static final Duration GRACE = io.rdmaflux.connector.CommandFilter.INPUT_FAILED_WAIT.plusSeconds(3);
    /** Receivers bind all addresses; a local sender reaches a local receiver here. */
    private static final String LOOPBACK = "127.0.0.1";

    /**
     * How a hop ended; {@code reportedByPeer}: its failure is one a channel peer reported
     * ({@link RdmaFluxException#reportedByPeer()}), so its cause lies in a neighbour;
     * {@code stdoutGone}: the hop is rdpipe's own stdout and its reader went away (| head).
     */
    private record Outcome(int hop, int status, String message, long bytes, boolean cancelled, boolean reportedByPeer,
                           boolean stdoutGone) {
        boolean failed() {
            return status != 0;
        }
    }

    /** A receiving end, once bound: where its sender connects. */
    private record Endpoint(String host, int port) {
    }

    private final List<Hop> hops;
    private final RemoteShell shell;
    /** Starts a hop's agent ({@link RemoteShell#startAgent}); tests may wrap it to watch the starts' order. */
    private final Function<RemoteHost, RemoteAgent> starter;
    private final PluginRegistry plugins;
    private final PipeCommand.Settings settings;
    private final Meter meter;
    private final RemoteAgent[] agents;
    private final String[] keys;
    private final List<Sinks.One<Outcome>> outcomes = new ArrayList<>();
    private final Disposable.Composite locals = Disposables.composite();
    private final AtomicBoolean tornDown = new AtomicBoolean();
    /** The bytes each hop took in so far: local hops count their source, agents report theirs. */
    private final AtomicLongArray moved;
    /** What this run added to the meter: the busiest hop's count, when it was last shown. */
    private final AtomicLong shown = new AtomicLong();
    /** The ports local receiving hops bound, by hop. */
    private final Map<Integer, Sinks.One<Integer>> localPorts = new java.util.concurrent.ConcurrentHashMap<>();

    PipeChain(List<Hop> hops, RemoteShell shell, PluginRegistry plugins, PipeCommand.Settings settings, Meter meter) {
        this(hops, shell, shell::startAgent, plugins, settings, meter);
    }

    PipeChain(List<Hop> hops, RemoteShell shell, Function<RemoteHost, RemoteAgent> starter, PluginRegistry plugins,
              PipeCommand.Settings settings, Meter meter) {
        this.hops = hops;
        this.shell = shell;
        this.starter = starter;
        this.plugins = plugins;
        this.settings = settings;
        this.meter = meter;
        this.agents = new RemoteAgent[hops.size()];
        this.keys = new String[hops.size()];
        this.moved = new AtomicLongArray(hops.size());
        for (int i = 0; i < hops.size(); i++) {
            outcomes.add(Sinks.one());
            if (hops.get(i).input() == Input.RECEIVE) {
                keys[i] = AgentMessage.newKey();
            }
        }
    }

    /** Runs the hops; completes empty on success, fails with a {@link SegmentFailure}. */
    Mono<Void> run() {
        return Mono.defer(() -> {
            start();
            return Flux.merge(outcomes.stream().map(Sinks.One::asMono).toList())
                    .doOnNext(o -> {
                        if (o.failed() && !o.cancelled()) {
                            log.debug("{} failed ({}): {}", hops.get(o.hop()).label(), o.status(), o.message());
                            Mono.delay(GRACE).subscribe(x -> tearDown());
                        }
                    })
                    .collectList()
                    .flatMap(this::verdict);
        }).doOnCancel(this::tearDown);
    }

    private void start() {
        meter.streamStarted();
        startAgents();
        // Where each receiving end listens, as its sender should reach it.
        List<Mono<Endpoint>> endpoints = new ArrayList<>();
        for (int i = 0; i < hops.size(); i++) {
            endpoints.add(hops.get(i).input() == Input.RECEIVE ? endpoint(i).cache() : Mono.never());
        }
        for (int i = 0; i < hops.size(); i++) {
            Hop hop = hops.get(i);
            int index = i;
            if (!hop.isLocal()) {
                RemoteAgent agent = agents[i];
                AgentMessage.Job job = new AgentMessage.Job(pipeline(i, null), settings.progressInterval(),
                        settings.verbose(), settings.debug());
                agent.submit(job).subscribe(x -> { }, e -> log.debug("job for {} not sent: {}", hop.label(), e.toString()));
                agent.done().subscribe(d -> finish(index, 0, null, d.bytes(), false, false),
                        e -> finish(index, status(e), Console.message(e), agent.bytes(), reportedByPeer(e), false));
                if (hop.output() == Output.SEND) {
                    endpoints.get(i + 1).flatMap(ep -> agent.connect(ep.host(), ep.port())
                                    .doOnSuccess(x -> log.debug("told {} where to send", hop.label())))
                            .subscribe(x -> { }, e -> log.debug("no connect for {}: {}", hop.label(), e.toString()));
                }
                // A remote hop's count is what its agent reports.
                locals.add(Flux.interval(Duration.ofMillis(500)).subscribe(x -> moved(index, agent.bytes())));
            } else if (hop.output() == Output.SEND) {
                locals.add(endpoints.get(i + 1).subscribe(ep -> runLocal(index, ep),
                        e -> log.debug("no endpoint for {}: {}", hop.label(), e.toString())));
            } else {
                runLocal(index, null);
            }
        }
    }

    /**
     * Starts the remote hops' agents, each host's on a thread of its own: a start forks ssh and
     * waits for it to lead a process group of its own (with --install-remote it installs
     * first), 50-250 ms a hop on a loaded host, which one after another delayed the last hop's
     * ssh by their sum. A host named twice still starts its hops in order, so that its first
     * ssh can become the shared master for the next. Every start is bounded by its own waits.
     * When starts fail, the first failing hop's failure in the chain is thrown, as when they
     * ran in order, and the agents that did start are disposed of (the tool's end waits for them).
     */
    private void startAgents() {
        Map<RemoteHost, List<Integer>> byHost = new LinkedHashMap<>();
        for (int i = 0; i < hops.size(); i++) {
            if (!hops.get(i).isLocal()) {
                byHost.computeIfAbsent(hops.get(i).host(), h -> new ArrayList<>()).add(i);
            }
        }
        if (byHost.isEmpty()) {
            return;
        }
        // ssh's command line once, in hop order, first: a once-per-process note it may print
        // ("not sharing the ssh connection") names the first remote hop's host, as before.
        shell.command(byHost.keySet().iterator().next(), "");
        RuntimeException[] failures = new RuntimeException[hops.size()];
        List<Thread> threads = new ArrayList<>();
        byHost.forEach((host, indexes) -> {
            Thread t = new Thread(() -> {
                for (int i : indexes) {
                    try {
                        agents[i] = starter.apply(host);
                    } catch (RuntimeException e) {
                        failures[i] = e;
                        return;
                    }
                }
            }, "rdpipe-start-" + host);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        });
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;   // the starts are bounded: wait for them all the same
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        for (RuntimeException failure : failures) {
            if (failure != null) {
                for (RemoteAgent a : agents) {
                    if (a != null) {
                        a.dispose();
                    }
                }
                throw failure;
            }
        }
    }

    /** The endpoint of receiving hop {@code i}, once it reports its port. */
    private Mono<Endpoint> endpoint(int i) {
        Hop receiver = hops.get(i);
        Hop sender = hops.get(i - 1);
        if (!receiver.isLocal()) {
            // The address this host's sshd was reached at; the same for every sender.
            RemoteAgent agent = agents[i];
            return agent.dataAddress().flatMap(host -> agent.listening().map(l -> new Endpoint(host, l.port())));
        }
        Mono<String> host = sender.isLocal() ? Mono.just(LOOPBACK)
                : agents[i - 1].hello().map(h -> h.sshClient() != null && AgentMessage.isAddress(h.sshClient())
                        ? h.sshClient() : LOOPBACK);
        return Mono.zip(host, listening(i), Endpoint::new);
    }

    private Mono<Integer> listening(int i) {
        return localPorts.computeIfAbsent(i, k -> Sinks.one()).asMono();
    }

    /** Runs local hop {@code i}; {@code downstream} is where its send sink connects (null when it sends nothing). */
    private void runLocal(int i, Endpoint downstream) {
        Hop hop = hops.get(i);
        boolean last = i == hops.size() - 1;
        PipelineListener listener = new PipelineListener() {
            @Override
            public void onListening(InetSocketAddress address) {
                localPorts.computeIfAbsent(i, k -> Sinks.one()).tryEmitValue(address.getPort());
            }

            @Override
            public void onSourceBytes(long bytes) {
                moved.addAndGet(i, bytes);
                show();
            }
        };
        Disposable running = Mono.fromCallable(() -> {
                    Map<String, Object> p = pipeline(i, downstream);
                    AgentPipelines.checkBudget(p, false);   // this JVM's buffers, as an agent checks its own
                    return AgentPipelines.fromMap(p, plugins, false).toPipeline();
                })
                .flatMap(p -> p.listener(listener).run())
                // Each hop's outcome says itself whether stdout's reader went: hops end on
                // different threads, and a flag they shared lost that news to a race.
                .subscribe(r -> finish(i, 0, null, bytes(r), false, false),
                        e -> finish(i, status(e), Console.message(e), 0, reportedByPeer(e),
                                StdoutSink.readerGone(reactor.core.Exceptions.unwrap(e))));
        locals.add(running);
        log.debug("started {} here: {}", hop.label(), hop.describe(last ? null : hops.get(i + 1)));
    }

    private static long bytes(PipelineResult r) {
        return r.bytesOut();
    }

    /** Hop {@code i}'s pipeline map, with its link keys, and its downstream address when known. */
    private Map<String, Object> pipeline(int i, Endpoint downstream) {
        Map<String, Object> p = hops.get(i).pipeline(settings.zstdLevel(), settings.encrypt());
        if (keys[i] != null) {
            p.put("source", sized(with((Map<?, ?>) p.get("source"), "key", keys[i])));
        }
        if (hops.get(i).output() == Output.SEND) {
            Map<String, Object> sink = sized(with((Map<?, ?>) p.get("sink"), "key", keys[i + 1]));
            if (downstream != null) {
                sink.put("host", downstream.host());
                sink.put("port", downstream.port());
            }
            p.put("sink", sink);
        }
        return p;
    }

    /** A hop's receive source or send sink with --frame-size and --slots, unless those are the defaults (the job as before). */
    private Map<String, Object> sized(Map<String, Object> channel) {
        if (!settings.sizing().equals(io.rdmaflux.cli.remote.AgentSizing.DEFAULT)) {
            channel.put("frame-size", settings.sizing().frameSize());
            channel.put("slots", settings.sizing().slots());
        }
        return channel;
    }

    private static Map<String, Object> with(Map<?, ?> m, String key, Object value) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put((String) k, v));
        out.put(key, value);
        return out;
    }

    private void finish(int i, int status, String message, long bytes, boolean reportedByPeer, boolean stdoutGone) {
        Hop hop = hops.get(i);
        if (status == 0) {
            moved(i, bytes);
        }
        if (message != null && !hop.isLocal() && message.startsWith(hop.host() + ": ")) {
            // An agent's failures name their host; the verdict names it once.
            message = message.substring(hop.host().toString().length() + 2);
        }
        outcomes.get(i).tryEmitValue(new Outcome(i, status, message, bytes, tornDown.get() && status != 0,
                reportedByPeer, stdoutGone));
    }

    /** Hop {@code i} took in {@code total} bytes so far (a count never goes back). */
    private void moved(int i, long total) {
        moved.accumulateAndGet(i, total, Math::max);
        show();
    }

    /** Brings the meter up to the busiest hop's count; this run's share of it only grows. */
    private void show() {
        long busiest = 0;
        for (int i = 0; i < moved.length(); i++) {
            busiest = Math.max(busiest, moved.get(i));
        }
        long before = shown.getAndAccumulate(busiest, Math::max);
        if (busiest > before) {
            meter.add(busiest - before);
        }
    }

    /** The exit status a hop's failure stands for: a command's own status, else the tools' table. */
    static int status(Throwable t) {
        return ExitCode.of(reactor.core.Exceptions.unwrap(t));
    }

    /** Whether a hop's failure (here, or as its agent reported it) is one a channel peer reported. */
    private static boolean reportedByPeer(Throwable t) {
        Throwable e = reactor.core.Exceptions.unwrap(t);
        return e instanceof RemoteException re ? re.reportedByPeer() : RdmaFluxException.isReportedByPeer(e);
    }

    /**
     * Whether a failure only follows from another: torn down by rdpipe, cut short (75), or
     * reported by the channel's other end (whose own failure is then the cause).
     */
    private static boolean isConsequence(Outcome o) {
        return o.cancelled() || o.status() == ExitCode.TEMP_FAIL || o.reportedByPeer();
    }

    /** Ends whatever still runs: agents (their stdin closed) and local pipelines. */
    void tearDown() {
        if (!tornDown.compareAndSet(false, true)) {
            return;
        }
        log.debug("tearing the chain down");
        for (RemoteAgent a : agents) {
            if (a != null) {
                a.dispose();
            }
        }
        locals.dispose();
        for (int i = 0; i < hops.size(); i++) {
            if (hops.get(i).isLocal()) {
                outcomes.get(i).tryEmitValue(new Outcome(i, ExitCode.TEMP_FAIL, "cancelled", 0, true, false, false));
            }
        }
    }

    private Mono<Void> verdict(List<Outcome> all) {
        Outcome[] byHop = new Outcome[hops.size()];
        all.forEach(o -> byHop[o.hop()] = o);
        Outcome primary = null;
        Outcome anyFailure = null;
        // Whether the hop after the one looked at ended well, or counts as having done so.
        boolean nextWell = false;
        for (int i = hops.size() - 1; i >= 0; i--) {
            Outcome o = byHop[i];
            if (!o.failed() || nextWell && o.reportedByPeer()) {
                // Told by a peer while the next hop ended well: that receiver took what it
                // needed and stopped reading, as a shell pipe's reader that exits early, which
                // is no failure of the chain; nor is it for the hops before, told in turn.
                // (Were the peer the hop before, its own failure counts.)
                nextWell = true;
                continue;
            }
            nextWell = false;
            if (anyFailure == null) {
                anyFailure = o;
            }
            if (primary == null && !isConsequence(o)) {
                primary = o;
            }
        }
        if (primary == null) {
            primary = anyFailure;
        }
        if (primary == null) {
            show();
            return Mono.empty();
        }
        for (Outcome o : all) {
            if (o != primary && o.failed() && settings.verbose()) {
                Console.info(hops.get(o.hop()).label() + " also failed: " + o.message());
            }
        }
        Hop hop = hops.get(primary.hop());
        String why = primary.message();
        return Mono.error(new SegmentFailure(primary.status(), hop.label() + " failed"
                + (hop.isLocal() ? "" : " on " + hop.host()) + ": " + why,
                primary.stdoutGone() && primary.status() == ExitCode.PIPE));
    }
}
