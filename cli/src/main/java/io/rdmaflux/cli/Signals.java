package io.rdmaflux.cli;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.connector.PipeEnd;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.StandardStreams;
import io.rdmaflux.connector.Source;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGINT, SIGTERM and SIGHUP for the tools. The first one fails the running stream through
 * its data path ({@link #guard}): the sink removes its partial output, the peer is told why
 * (ErrorCode INTERRUPTED), and the process then ends by that same signal ({@link #exit}), so
 * that a shell sees a program killed by Ctrl-C (status 128 + n) and stops its script. A second
 * signal ends the process at once, unless it came within half a second of the first: that is
 * the same Ctrl-C delivered twice (to the process group and forwarded by a parent such as
 * {@code timeout}), which must not cut the clean-up short.
 *
 * <p><b>The race with the producer.</b> Ctrl-C kills a producer ({@code tar c dir | rdsend})
 * in the same instant, and its end of input may be read before the handler runs. An end of
 * input from a pipe or socket is therefore confirmed only after {@link PipeEnd#GRACE} with no
 * signal ({@link #confirmEnd}; the pipelines' {@code stdin} source does the same, which covers
 * rdpipe). {@link PipeEnd} has the measurement behind the grace.
 */
final class Signals {

    private static final String[] HANDLED = {"INT", "TERM", "HUP"};
    /**
     * How long a tool's end waits for a sink's commit under way (syncing a large file when the
     * failure came) to finish, or its clean-up after it: a JVM exit's own hook waits 2 s, which
     * such a commit can outlast, leaving its partial file behind. Other clean-ups get 2 s, as
     * before. A second signal still ends the process at once.
     */
    static final Duration CLEAN_UP_WAIT = Duration.ofSeconds(30);
    private static final AtomicReference<Signal> received = new AtomicReference<>();
    private static final Sinks.One<Signal> raised = Sinks.one();
    private static final AtomicBoolean streamStarted = new AtomicBoolean();
    /** A signal this soon after the first is the same one delivered twice, not a second. */
    private static final long REPEAT_NANOS = 500_000_000L;
    private static volatile long firstAt;
    private static boolean installed;
    /** What runs just before the process ends through {@link #exit} (a standby's exit frame); null: nothing. */
    private static volatile java.util.function.IntConsumer beforeExit;

    private Signals() {
    }

    /** Installs the handlers (once). Signals ignored when the JVM started stay ignored. */
    static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        SignalHandler handler = Signals::onSignal;
        for (String name : HANDLED) {
            try {
                Signal.handle(new Signal(name), handler);
            } catch (IllegalArgumentException e) {
                // -Xrs, or a platform without it: the JVM's default handling stays.
            }
        }
    }

    private static void onSignal(Signal signal) {
        long now = System.nanoTime();
        if (!received.compareAndSet(null, signal)) {
            // One Ctrl-C can arrive twice: to the process group and forwarded by a parent
            // (timeout(1), a supervisor). Only a signal well after the first is impatience
            // (0: the first is being recorded on another handler thread this very instant).
            long first = firstAt;
            if (first == 0 || now - first < REPEAT_NANOS) {
                return;
            }
            Runtime.getRuntime().halt(ExitCode.ofSignal(received.get().getNumber()));
        }
        firstAt = now;
        raised.tryEmitValue(signal);
    }

    /** The first signal received, or null. */
    static Signal received() {
        return received.get();
    }

    /** Emits the first signal received. */
    static Mono<Signal> raised() {
        return raised.asMono();
    }

    /**
     * Whether {@code failure}, after a signal, is only its consequence: an agent's ssh
     * connection lost, or an rdpipe segment cut short (75), as when the terminal's Ctrl-C
     * reaches ssh too and ssh dies first. (A stream's own "interrupted by" failure is not: it
     * says what was done about the signal.)
     */
    static boolean consequence(Throwable failure) {
        Throwable e = reactor.core.Exceptions.unwrap(failure);
        return e instanceof RemoteException r && r.kind() == RemoteException.Kind.LOST
                || e instanceof SegmentFailure s && s.status() == ExitCode.TEMP_FAIL;
    }

    /** "SIGINT", for messages. */
    static String name(Signal s) {
        return "SIG" + s.getName();
    }

    /** Whether a guarded data path was subscribed: the stream is under way. */
    static boolean streamStarted() {
        return streamStarted.get();
    }

    /**
     * Marks a stream under way whose work ends itself on a signal (as a {@link #guard guarded}
     * path does: rdcp's copy), so that {@link Runner} gives it its clean-up time.
     */
    static void streamUnderWay() {
        streamStarted.set(true);
    }

    /**
     * {@code data} until a signal arrives, then an error: RdmaFluxException(INTERRUPTED,
     * "{@code role} interrupted by SIGINT"), after cancelling {@code data}.
     */
    static <T> Flux<T> guard(Flux<T> data, String role) {
        return data.doOnSubscribe(s -> streamStarted.set(true))
                .takeUntilOther(raised.asMono())
                .concatWith(Mono.defer(() -> {
                    Signal s = received.get();
                    return s == null ? Mono.empty()
                            : Mono.error(new RdmaFluxException(ErrorCode.INTERRUPTED, role + " interrupted by " + name(s)));
                }));
    }

    /**
     * {@code source}, whose stream is {@link #guard guarded}, and, when {@code confirmEnd}, has
     * its end {@link #confirmEnd confirmed}.
     */
    static Source guard(Source source, String role, boolean confirmEnd) {
        return source.transformStream(data -> guard(confirmEnd ? confirmEnd(data) : data, role));
    }

    /** {@code sink}, writing a {@link #guard guarded} stream. */
    static Sink guard(Sink sink, String role) {
        return new Sink() {
            @Override
            public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
                return sink.write(guard(Flux.from(data), role), metadata);
            }

            @Override
            public String describe() {
                return sink.describe();
            }
        };
    }

    /**
     * {@code data}, whose completion is held back for {@link PipeEnd#GRACE}: guarded, a signal
     * that arrives meanwhile turns the end of input into an interruption.
     */
    static <T> Flux<T> confirmEnd(Flux<T> data) {
        return PipeEnd.held(data);
    }

    /**
     * Whether the input {@code file} (null or "-": standard input) is a pipe or a socket,
     * whose end may come from a producer killed by the same signal ({@link PipeEnd#isPipe}).
     */
    static boolean inputIsPipe(String file) {
        return PipeEnd.isPipe(file == null || file.equals("-") ? StandardStreams.path(0) : Path.of(file));
    }

    /**
     * Sets what {@link #exit} runs once the sinks are settled and before the process ends, given
     * the exit status: a standby JVM reports the status to its client there. A second signal's
     * halt runs nothing (the client then dies by the signal it forwarded).
     */
    static void beforeExit(java.util.function.IntConsumer hook) {
        beforeExit = hook;
    }

    /**
     * Ends the process with {@code code}; when that is the status of the signal received,
     * by the signal itself (default action), as a shell expects of a program it interrupted.
     * Either way the sinks' writes still open are cancelled and waited for first: one in the
     * middle of its commit up to {@link #CLEAN_UP_WAIT}, so that the tool never ends before it
     * has committed or removed its partial file (a signal's default action runs no shutdown
     * hooks, and a JVM exit's hook waits only 2 s).
     */
    static void exit(int code) {
        Sink.abandonAll(CLEAN_UP_WAIT, Console::info);
        java.util.function.IntConsumer hook = beforeExit;
        if (hook != null) {
            try {
                hook.accept(code);
            } catch (RuntimeException e) {
                // The status is the call's; a hook that failed cannot change it.
            }
        }
        Signal s = received.get();
        if (s != null && code == ExitCode.ofSignal(s.getNumber())) {
            try {
                Signal.handle(s, SignalHandler.SIG_DFL);
                Signal.raise(s);
            } catch (IllegalArgumentException e) {
                // Fall through to exit().
            }
        }
        System.exit(code);
    }
}
