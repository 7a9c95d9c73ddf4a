package io.rdmaflux.cli.remote;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The remote end of {@code rdflux agent}: speaks the agent protocol on stdin and stdout (see
 * {@link AgentMessage} and docs/remote.md) and runs one job. It says hello, reads the job,
 * reports the port its receiver bound, runs, reports the outcome and returns the exit status.
 * When stdin ends (the coordinator or its ssh connection went away) the job is torn down:
 * a {@link JobRunner} makes its streams fail at once, so partial output is removed and
 * peers are told; anything still running after a grace period is cancelled.
 */
public final class Agent {

    /** How long the coordinator has to send the job after the hello. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
    /** How long a job may take to end on its own after stdin closed, before it is cancelled. */
    public static final Duration ABORT_GRACE = Duration.ofSeconds(5);
    /** How long a cancelled job gets to clean up before the agent exits anyway. */
    private static final long CLEANUP_MS = 1000;

    /** Runs a job's pipeline. */
    @FunctionalInterface
    public interface JobRunner {
        /**
         * The job's work, completing when it succeeded. Failures become the {@code done}
         * message and exit status. Nothing runs until the Mono is subscribed.
         */
        Mono<Void> run(AgentMessage.Job job, Control control);
    }

    /** What a running job tells the coordinator, and hears from it. */
    public interface Control {

        /** The job's receiver listens on {@code port}: reported to the coordinator. */
        void listening(int port, List<String> transports);

        /** Data started to flow. */
        void started();

        /**
         * A file or link of the tree at the job's sink, named (when the job asked for names):
         * passed to the coordinator at once. May block until the coordinator has read it.
         */
        default void entry(AgentMessage.Entry entry) {
        }

        /** Where the job counts what it moved: bytes, files complete, the tree's totals. */
        ProgressCount count();

        /** Where the job's send sink connects, once the coordinator says (a {@code connect} message). */
        Mono<AgentMessage.Connect> downstream();

        /**
         * Completes when the coordinator went away (stdin ended). A job fails its streams with
         * {@link #abortError()} then, so that they clean up as on any failure.
         */
        Mono<Void> aborted();

        /** The failure a job's streams end with when {@link #aborted()} fires. */
        default RdmaFluxException abortError() {
            return new RdmaFluxException(ErrorCode.CANCELLED, "cancelled: the coordinator or its ssh connection went away");
        }
    }

    private final JobRunner runner;
    private final ToIntFunction<Throwable> exitCodes;
    private final Function<Throwable, String> messages;
    private final Sinks.Empty<Void> eof = Sinks.empty();
    private final CountDownLatch finished = new CountDownLatch(1);

    /**
     * @param runner    runs the jobs
     * @param exitCodes the exit status for a failure (the tools' table)
     * @param messages  the one-line message for a failure
     */
    public Agent(JobRunner runner, ToIntFunction<Throwable> exitCodes, Function<Throwable, String> messages) {
        this.runner = Objects.requireNonNull(runner);
        this.exitCodes = Objects.requireNonNull(exitCodes);
        this.messages = Objects.requireNonNull(messages);
    }

    /**
     * Ends the job as if stdin had closed (on SIGTERM, say): its streams fail, clean up and tell
     * their peers. {@link #serve} then returns.
     */
    public void abort() {
        eof.tryEmitEmpty();
    }

    /** Waits until {@link #serve} has returned, at most {@code timeout}; whether it has. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Serves one job over {@code in} and {@code out} and returns the exit status. An agent
     * serves once.
     *
     * @param env     the environment ({@code SSH_CONNECTION} gives the addresses in the hello)
     * @param version this tool's version, for the hello
     */
    public int serve(InputStream in, PrintStream out, Map<String, String> env, String version) {
        return serve(in, out, env, version, null);
    }

    /**
     * {@link #serve(InputStream, PrintStream, Map, String)} with a hello that carries
     * {@code nonce}, as the coordinator that started this agent asked ({@code --hello NONCE}).
     */
    public int serve(InputStream in, PrintStream out, Map<String, String> env, String version, String nonce) {
        return serve(in, out, env, version, nonce, null);
    }

    /**
     * {@link #serve(InputStream, PrintStream, Map, String, String)} for a session of the warm
     * agent listening at {@code warmSocket}, which the hello names.
     */
    public int serve(InputStream in, PrintStream out, Map<String, String> env, String version, String nonce,
                     String warmSocket) {
        try {
            return serveJob(in, out, env, version, nonce, warmSocket);
        } finally {
            finished.countDown();
        }
    }

    private int serveJob(InputStream in, PrintStream out, Map<String, String> env, String version, String nonce,
                         String warmSocket) {
        String[] ssh = env.getOrDefault("SSH_CONNECTION", "").trim().split("\\s+");
        send(out, new AgentMessage.Hello(AgentMessage.PROTOCOL, version,
                ssh.length == 4 && AgentMessage.isAddress(ssh[0]) ? ssh[0] : null,
                ssh.length == 4 && AgentMessage.isAddress(ssh[2]) ? ssh[2] : null, nonce, warmSocket));

        Sinks.One<AgentMessage.Job> job = Sinks.one();
        Sinks.One<AgentMessage.Connect> downstream = Sinks.one();
        Thread reader = new Thread(() -> read(in, job, downstream), "agent-stdin");
        reader.setDaemon(true);
        reader.start();

        ProgressCount count = new ProgressCount();
        AgentMessage.Job received;
        try {
            received = Mono.firstWithSignal(job.asMono(),
                            eof.asMono().then(Mono.error(() -> new RdmaFluxException(ErrorCode.CANCELLED,
                                    "the coordinator went away before sending a job"))))
                    .timeout(JOB_TIMEOUT, Mono.error(() -> new RdmaFluxException(ErrorCode.TIMEOUT,
                            "no job within " + JOB_TIMEOUT.toSeconds() + " s")))
                    .block();
        } catch (RuntimeException e) {
            return done(out, e, 0);
        }

        Control control = new Control() {
            @Override
            public void listening(int port, List<String> transports) {
                send(out, new AgentMessage.Listening(port, transports));
            }

            @Override
            public void started() {
                send(out, new AgentMessage.Started());
            }

            @Override
            public void entry(AgentMessage.Entry entry) {
                // Written as it comes: a full pipe to the coordinator slows the sink, nothing piles up.
                send(out, entry);
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
                return eof.asMono();
            }
        };
        ProgressReports reports = new ProgressReports(count, m -> send(out, m));
        Disposable progress = received.progressInterval() <= 0 ? () -> { }
                : Flux.interval(Duration.ofMillis(received.progressInterval()))
                        .subscribe(x -> reports.tick());
        try {
            Mono<Void> work = Mono.defer(() -> runner.run(received, control));
            // The job fails its own streams on abort; this is the backstop for one that does not end.
            RdmaFluxException overdue = control.abortError();
            Mono<Void> backstop = eof.asMono().then(Mono.delay(ABORT_GRACE)).then(Mono.error(overdue));
            Throwable failure = await(Mono.firstWithSignal(work, backstop));
            if (failure == overdue) {
                // The job was cancelled: its sinks clean up on their own threads; give them a moment.
                pause(CLEANUP_MS);
            }
            progress.dispose();
            if (received.progressInterval() > 0) {
                reports.last();   // the final counts, for the coordinator's summary
            }
            return done(out, failure, count.bytes());
        } finally {
            progress.dispose();
        }
    }

    /** Runs {@code work} to its end; null on success, else the failure. */
    private static Throwable await(Mono<Void> work) {
        CountDownLatch finished = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Disposable running = work.subscribe(null, e -> {
            failure.set(e);
            finished.countDown();
        }, finished::countDown);
        try {
            finished.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.dispose();
            return new RdmaFluxException(ErrorCode.CANCELLED, "the agent was interrupted");
        }
        return failure.get();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private int done(PrintStream out, Throwable failure, long bytes) {
        if (failure == null) {
            send(out, new AgentMessage.Done(0, bytes, null));
            return 0;
        }
        Throwable e = reactor.core.Exceptions.unwrap(failure);
        int status = exitCodes.applyAsInt(e);
        List<String> failures = List.of();
        if (e instanceof PartialTransferException p) {
            failures = capped(p.failures());
        }
        send(out, new AgentMessage.Done(status, bytes, messages.apply(e), failures,
                RdmaFluxException.isReportedByPeer(e)));
        return status;
    }

    /** At most {@link AgentMessage.Done#MAX_FAILURES} lines of bounded length, so that the done line stays short. */
    private static List<String> capped(List<String> failures) {
        int keep = Math.min(failures.size(), AgentMessage.Done.MAX_FAILURES);
        List<String> out = new java.util.ArrayList<>(keep + 1);
        for (int i = 0; i < keep; i++) {
            String f = failures.get(i);
            out.add(f.length() > 2000 ? f.substring(0, 2000) + "..." : f);
        }
        if (failures.size() > keep) {
            out.add("... and " + (failures.size() - keep) + " more lines");
        }
        return out;
    }

    private void read(InputStream in, Sinks.One<AgentMessage.Job> job, Sinks.One<AgentMessage.Connect> downstream) {
        LineReader lines = new LineReader(in, AgentMessage.MAX_LINE);
        try {
            String line;
            while ((line = lines.next()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                AgentMessage m;
                try {
                    if (lines.truncated()) {
                        throw new IllegalArgumentException("a message longer than " + AgentMessage.MAX_LINE + " bytes");
                    }
                    m = AgentMessage.parse(line);
                } catch (IllegalArgumentException e) {
                    job.tryEmitError(new RdmaFluxException(ErrorCode.PROTOCOL, "bad message from the coordinator: "
                            + e.getMessage()));
                    break;
                }
                if (m instanceof AgentMessage.Job j) {
                    job.tryEmitValue(j);
                } else if (m instanceof AgentMessage.Connect c) {
                    downstream.tryEmitValue(c);
                }
            }
        } catch (IOException e) {
            // A read error is an end of the coordinator as much as EOF is.
        }
        eof.tryEmitEmpty();
    }

    private static void send(PrintStream out, AgentMessage m) {
        synchronized (out) {
            out.println(m.toLine());
            out.flush();
        }
    }
}
