package io.rdmaflux.channel;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The sessions a bound receiver is serving, so that a graceful dispose can let the streams in
 * flight finish and cancel those that outlast its timeout ({@link ReceiverServer#disposeGracefully}).
 */
final class LiveStreams {

    /** How long cancelled streams get to report their end (their own waits are bounded below this). */
    private static final Duration AFTER_CANCEL = Duration.ofSeconds(15);

    private final Set<ReceiverSession> sessions = ConcurrentHashMap.newKeySet();

    /** Tracks {@code session} until its outcome is known. */
    ReceiverSession add(ReceiverSession session) {
        sessions.add(session);
        session.result().subscribe(null, e -> sessions.remove(session), () -> sessions.remove(session));
        return session;
    }

    /**
     * Refuses the connections still in their handshake (BUSY), waits up to {@code timeout} for
     * the streams in flight, then cancels those left and waits for them to report. Never fails.
     * The caller has stopped accepting first.
     */
    Mono<Void> drain(Duration timeout) {
        return Mono.defer(() -> {
            for (ReceiverSession s : List.copyOf(sessions)) {
                if (!s.isAuthenticated()) {
                    s.refuseShuttingDown();
                }
            }
            return ended().timeout(timeout, Mono.defer(() -> {
                List<ReceiverSession> left = List.copyOf(sessions);
                left.forEach(ReceiverSession::cancelShuttingDown);
                return ended().timeout(AFTER_CANCEL, Mono.empty());
            }));
        });
    }

    /** Completes when every session tracked now has its outcome, whatever it is. */
    private Mono<Void> ended() {
        return Flux.fromIterable(List.copyOf(sessions))
                .flatMap(s -> s.result().onErrorComplete())
                .then();
    }
}
