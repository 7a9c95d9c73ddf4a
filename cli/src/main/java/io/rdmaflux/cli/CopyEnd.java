package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.ProgressCount;
import io.rdmaflux.cli.remote.RemoteAgent;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.List;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One end of a transfer that a coordinator (rdcp) wires up: a pipeline in the agent's job
 * format, run either by {@code rdflux agent} on another host over ssh or in this process by the
 * same runner ({@link AgentPipelines}). Both report the port their receiver bound, take the
 * address their send sink connects to, report progress, and end with the job's outcome.
 */
abstract sealed class CopyEnd permits CopyEnd.Local, CopyEnd.Remote {

    /** Starts the end's job (its pipeline: source, stages, sink). Returns at once. */
    abstract void start(AgentMessage.Job job);

    /** The port the pipeline's receiving source bound. */
    abstract Mono<Integer> listening();

    /** Where the pipeline's send sink (given no host and port) connects. */
    abstract Mono<Void> connect(String host, int port);

    /** The outcome: completes on success, fails with what went wrong (a {@link RemoteException} for a remote end). */
    abstract Mono<Void> done();

    /** Makes the pipeline fail (its partial output removed, its peer told), as when the coordinator goes away. */
    abstract void abort();

    /** How far it is: bytes moved, files complete, the source's totals (-1 where unknown). */
    abstract AgentMessage.Progress progress();

    /** The host, or null for this one. */
    abstract RemoteHost host();

    /** Whether the job's data began to flow (a receiver: a sender's stream arrived). */
    abstract boolean streamBegan();

    /** Where the entries the job's tree sink names go (see {@link AgentMessage.Entry}); set before {@link #start}. */
    abstract void onEntry(java.util.function.Consumer<AgentMessage.Entry> consumer);

    /**
     * The address {@code peer} connects to for this end's receiver: a remote end's address as
     * its sshd was reached; this host as the peer's ssh connection came from; loopback
     * between two ends in this process.
     */
    Mono<String> addressFor(CopyEnd peer) {
        if (this instanceof Remote r) {
            return r.agent.dataAddress();
        }
        if (peer instanceof Remote p) {
            return p.agent.hello().flatMap(h -> h.sshClient() != null ? Mono.just(h.sshClient())
                    : Mono.error(new RemoteException(RemoteException.Kind.TOOL_FAILED, p.host(),
                            "cannot tell this host's address as seen from there (no SSH_CONNECTION); "
                                    + "the data connection needs it")));
        }
        return Mono.just("127.0.0.1");
    }

    /** The end on {@code host}, started over {@code shell}; null host: this process. */
    static CopyEnd on(RemoteHost host, RemoteShell shell) {
        return host == null ? new Local() : new Remote(shell.startAgent(host));
    }

    /** An agent on another host. */
    static final class Remote extends CopyEnd {

        final RemoteAgent agent;
        private final Mono<Void> done;

        Remote(RemoteAgent agent) {
            this.agent = agent;
            this.done = agent.done().then().cache();
        }

        @Override
        void start(AgentMessage.Job job) {
            // A failed submit shows in done(): the agent is gone.
            agent.submit(job).subscribe(null, e -> { });
        }

        @Override
        Mono<Integer> listening() {
            return agent.listening().map(AgentMessage.Listening::port);
        }

        @Override
        Mono<Void> connect(String host, int port) {
            return agent.connect(host, port);
        }

        @Override
        Mono<Void> done() {
            return done;
        }

        @Override
        void abort() {
            agent.dispose();
        }

        @Override
        AgentMessage.Progress progress() {
            return agent.progress();
        }

        @Override
        RemoteHost host() {
            return agent.host();
        }

        @Override
        boolean streamBegan() {
            return agent.started();
        }

        @Override
        void onEntry(java.util.function.Consumer<AgentMessage.Entry> consumer) {
            agent.onEntry(consumer);
        }
    }

    /** The pipeline in this process, run as an agent would run it. */
    static final class Local extends CopyEnd implements Agent.Control {

        private final Sinks.One<Integer> listening = Sinks.one();
        private final Sinks.One<AgentMessage.Connect> downstream = Sinks.one();
        private final Sinks.Empty<Void> aborted = Sinks.empty();
        private volatile RdmaFluxException abortError =
                new RdmaFluxException(ErrorCode.CANCELLED, "cancelled: the other end of the copy failed");
        private final ProgressCount count = new ProgressCount();
        private Mono<Void> done = Mono.never();
        private volatile java.util.function.Consumer<AgentMessage.Entry> entries = e -> { };
        private volatile boolean started;

        @Override
        void start(AgentMessage.Job job) {
            done = Mono.defer(() -> new AgentPipelines(false).run(job, this))
                    .doOnError(listening::tryEmitError)
                    .cache();
            done.subscribe(null, e -> { });
        }

        @Override
        Mono<Integer> listening() {
            return listening.asMono();
        }

        @Override
        Mono<Void> connect(String host, int port) {
            downstream.tryEmitValue(new AgentMessage.Connect(host, port));
            return Mono.empty();
        }

        @Override
        Mono<Void> done() {
            return done;
        }

        @Override
        void abort() {
            aborted.tryEmitEmpty();
        }

        /** {@link #abort()}, its streams failing with {@code why} (what their peers are told). */
        void abort(RdmaFluxException why) {
            abortError = why;
            abort();
        }

        @Override
        AgentMessage.Progress progress() {
            return count.now();
        }

        @Override
        RemoteHost host() {
            return null;
        }

        @Override
        boolean streamBegan() {
            return started;
        }

        @Override
        void onEntry(java.util.function.Consumer<AgentMessage.Entry> consumer) {
            entries = consumer;
        }

        @Override
        public void entry(AgentMessage.Entry entry) {
            entries.accept(entry);
        }

        // Agent.Control: what the pipeline reports.

        @Override
        public void listening(int port, List<String> transports) {
            listening.tryEmitValue(port);
        }

        @Override
        public void started() {
            started = true;
        }

        @Override
        public ProgressCount count() {
            return count;
        }

        @Override
        public Mono<AgentMessage.Connect> downstream() {
            return downstream.asMono();
        }

        @Override
        public Mono<Void> aborted() {
            return aborted.asMono();
        }

        @Override
        public RdmaFluxException abortError() {
            return abortError;
        }
    }
}
