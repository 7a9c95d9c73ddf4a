package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.time.Duration;
import reactor.core.publisher.Mono;

/** How a stream ended, for tests that expect failures as often as successes. */
final class Outcomes {

    static final Duration WAIT = Duration.ofSeconds(30);

    private Outcomes() {
    }

    /** Null when {@code stream} completes within {@link #WAIT}, otherwise how it failed. */
    static Throwable failure(Mono<Void> stream) {
        try {
            stream.block(WAIT);
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** {@code t} is a stream failure classified as {@code code}. */
    static void assertCode(Throwable t, ErrorCode code) {
        assertThat(t).isInstanceOf(RdmaFluxException.class);
        assertThat(((RdmaFluxException) t).code()).as("code of: %s", t.getMessage()).isEqualTo(code);
    }
}
