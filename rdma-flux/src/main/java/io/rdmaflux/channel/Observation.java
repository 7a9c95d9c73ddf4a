package io.rdmaflux.channel;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One stream's reports to its {@link StreamObserver}: the start once, the end once, each
 * guarded so that an observer that throws is logged and cannot break the stream.
 */
final class Observation {

    private static final Logger log = Loggers.getLogger(StreamObserver.class);

    private final StreamObserver observer;
    private final LiveStream stream;
    private final long startedAt = System.nanoTime();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();

    Observation(StreamObserver observer, LiveStream stream) {
        this.observer = observer;
        this.stream = stream;
    }

    void started() {
        if (started.compareAndSet(false, true)) {
            guarded(() -> observer.onStart(stream));
        }
    }

    /** The stream's end: {@code error} null for a success, or the failure. */
    void ended(Throwable error, boolean stoppedHere) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        RdmaFluxException failure = error == null ? null : RdmaFluxException.wrap(error, ErrorCode.INTERNAL);
        StreamOutcome.Result result = stoppedHere || failure != null && failure.code() == ErrorCode.STOPPED
                ? StreamOutcome.Result.STOPPED
                : failure == null ? StreamOutcome.Result.SUCCEEDED : StreamOutcome.Result.FAILED;
        StreamOutcome outcome = new StreamOutcome(stream.side(), result, stream.peer(), started.get(), stream.bytes(),
                Duration.ofNanos(System.nanoTime() - startedAt), failure);
        guarded(() -> observer.onEnd(stream, outcome));
    }

    /** A sender that could not connect: its end, with no start and no stream. */
    static void unconnected(StreamObserver observer, StreamOutcome.Side side, String peer, Throwable error) {
        new Observation(observer, new LiveStream() {
            @Override
            public StreamOutcome.Side side() {
                return side;
            }

            @Override
            public String peer() {
                return peer;
            }

            @Override
            public long bytes() {
                return 0;
            }

            @Override
            public int creditsInFlight() {
                return 0;
            }
        }).ended(error, false);
    }

    private static void guarded(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("a stream observer failed: {}", SessionBase.describe(e), e);
        }
    }
}
