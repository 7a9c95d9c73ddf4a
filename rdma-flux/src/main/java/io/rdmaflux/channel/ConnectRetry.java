package io.rdmaflux.channel;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.Predicate;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * When a sender tries again to connect to a receiver that is not listening yet: soon at first
 * (10 ms, doubling), as the receiver is usually a moment from listening (both tools started
 * together, by a script or over ssh), then every 200 ms until the connect timeout has passed.
 * A fixed 200 ms cost a tiny transfer up to 200 ms of nothing.
 */
final class ConnectRetry {

    static final Duration FIRST = Duration.ofMillis(10);
    static final Duration MAX = Duration.ofMillis(200);

    private ConnectRetry() {
    }

    /** The wait before retry {@code n} (0 for the first). */
    static Duration delay(long n) {
        return n >= 30 ? MAX : min(FIRST.multipliedBy(1L << n), MAX);
    }

    /** How many retries it takes for their waits to fill {@code timeout} (at least one). */
    static long retries(Duration timeout) {
        long n = 0;
        Duration waited = Duration.ZERO;
        while (waited.compareTo(timeout) < 0) {
            waited = waited.plus(delay(n++));
        }
        return Math.max(1, n);
    }

    /**
     * Retries the failures {@code retryable} accepts, with the waits above, for {@code timeout};
     * then fails with what {@code exhausted} makes of the last failure. Others fail at once.
     */
    static Retry spec(Duration timeout, Predicate<Throwable> retryable, Function<Throwable, Throwable> exhausted) {
        long max = retries(timeout);
        return Retry.from(signals -> signals.concatMap(s -> {
            Throwable failure = s.failure();
            if (!retryable.test(failure)) {
                return Mono.error(failure);
            }
            return s.totalRetries() >= max ? Mono.error(exhausted.apply(failure)) : Mono.delay(delay(s.totalRetries()));
        }));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
