package io.rdmaflux.pipeline;

import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.error.RdmaFluxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * One stream sent to several receivers at once (a fan-out; each receiver may itself relay, see
 * {@link ReceiveSource#forward}): the source is read and filtered once, and each destination
 * ({@link SendSink}) encodes it with its own session's keys and announces the stages, as a
 * single send sink does. The stream moves at the pace of the slowest destination still there.
 * Immutable.
 *
 * <pre>{@code
 * Pipeline.from(FileSource.of(path)).via(ZstdStage.spec(1), AesGcmStage.spec())
 *         .to(SendSinks.of(SendSink.create("w1", 7691, key), SendSink.create("w2", 7691, key)))
 *         .run();
 * }</pre>
 *
 * <p>By default a destination that fails (not listening, gone mid-stream) does not stop the
 * others: the sink completes once every destination ended, and its {@link SinkResult#failures()}
 * name each failed one as {@code "send to HOST:PORT: why"} (rdflux run then exits with the
 * partial-transfer status); only when every destination failed does the sink fail, naming each.
 * With {@link #failFast(boolean) failFast(true)} the first failure cancels the others and fails
 * the sink. The result's bytes are those sent to all destinations together.
 */
public final class SendSinks implements PipelineSink {

    private final List<SendSink> destinations;
    private final boolean failFast;

    private SendSinks(List<SendSink> destinations, boolean failFast) {
        this.destinations = destinations;
        this.failFast = failFast;
    }

    /** A sink sending to each of {@code destinations} (at least one), each failing on its own. */
    public static SendSinks of(List<SendSink> destinations) {
        List<SendSink> d = List.copyOf(Objects.requireNonNull(destinations, "destinations"));
        if (d.isEmpty()) {
            throw new IllegalArgumentException("a send sink needs at least one destination");
        }
        return new SendSinks(d, false);
    }

    /** {@link #of(List)} for destinations written out. */
    public static SendSinks of(SendSink... destinations) {
        return of(List.of(destinations));
    }

    /** Whether the first destination that fails cancels the others and fails the sink (default: false). */
    public SendSinks failFast(boolean failFast) {
        return new SendSinks(destinations, failFast);
    }

    /** The destinations, in the order given. */
    public List<SendSink> destinations() {
        return destinations;
    }

    @Override
    public Mono<SinkResult> write(Upstream upstream) {
        return Mono.defer(() -> {
            int n = destinations.size();
            Tee tee = new Tee(upstream.filtered(), n);
            AtomicReferenceArray<Object> outcomes = new AtomicReferenceArray<>(n);
            List<Mono<Void>> sends = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int at = i;
                SendSink to = destinations.get(i);
                Mono<SinkResult> send = to.write(upstream.branch(tee.branch(i), i == 0))
                        .switchIfEmpty(Mono.error(() -> new IllegalStateException("ended without a result")))
                        // A destination that failed before taking the stream must not hold the others back.
                        .doFinally(s -> tee.gone(at));
                sends.add(failFast
                        ? send.onErrorMap(e -> failed(failure(to, e), e)).doOnNext(r -> outcomes.set(at, r)).then()
                        : send.doOnNext(r -> outcomes.set(at, r))
                                .onErrorResume(e -> Mono.fromRunnable(() -> outcomes.set(at, e))).then());
            }
            return Mono.when(sends).then(Mono.fromCallable(() -> result(outcomes)));
        });
    }

    /** The destinations' outcomes as one result; an error when none of them got the stream. */
    private SinkResult result(AtomicReferenceArray<Object> outcomes) {
        long bytes = 0;
        List<String> reached = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < outcomes.length(); i++) {
            Object o = outcomes.get(i);
            if (o instanceof SinkResult r) {
                bytes += r.bytes();
                reached.add(r.location());
            } else {
                failures.add(failure(destinations.get(i), (Throwable) o));
            }
        }
        if (reached.isEmpty()) {
            throw failed("no destination got the stream: " + String.join("; ", failures), (Throwable) outcomes.get(0));
        }
        return new SinkResult(bytes, String.join(", ", reached), failures);
    }

    /**
     * {@code message}, classified as {@code cause} is: a channel failure keeps its code, so that
     * the tools exit as for a single send sink (no receiver 69, a wrong key 77).
     */
    private static RuntimeException failed(String message, Throwable cause) {
        return cause instanceof RdmaFluxException pe ? new RdmaFluxException(pe.code(), message, cause)
                : new IllegalStateException(message, cause);
    }

    /** "send to HOST:PORT: why", one line. */
    private static String failure(SendSink to, Throwable e) {
        String why = e == null ? "no outcome" : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return to.describe() + ": " + why.lines().findFirst().orElse(why);
    }

    @Override
    public boolean providesSessionKey() {
        return true;
    }

    /** The smallest of the destinations' frame sizes: the stages' blocks fit each one's frames. */
    @Override
    public int frameSize() {
        return destinations.stream().mapToInt(SendSink::frameSize).min().orElse(0);
    }

    @Override
    public String describe() {
        return destinations.stream().map(SendSink::describe).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return "SendSinks[" + destinations.stream().map(SendSink::toString).collect(Collectors.joining(", "))
                + (failFast ? ", fail-fast" : "") + "]";
    }
}
