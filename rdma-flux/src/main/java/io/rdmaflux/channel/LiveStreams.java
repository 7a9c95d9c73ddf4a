package io.rdmaflux.channel;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The sessions a bound receiver is serving, so that a graceful dispose can let the streams in
 * flight finish and cancel those that outlast its timeout ({@link ReceiverServer#disposeGracefully}),
 * and the connections kept idle between streams, so that a dispose closes them at once.
 */
final class LiveStreams {

    /** How long cancelled streams get to report their end (their own waits are bounded below this). */
    private static final Duration AFTER_CANCEL = Duration.ofSeconds(15);

    private final Set<ReceiverSession> sessions = ConcurrentHashMap.newKeySet();
    /** Kept connections waiting for their sender's next stream, the longest idle first. */
    private final Queue<KeptConnection> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    /**
     * Tracks a connection kept idle after a stream, so that a dispose closes it; false when the
     * receiver is being disposed (the caller closes it then).
     */
    boolean addIdle(KeptConnection kept) {
        idle.add(kept);
        if (closed) {
            idle.remove(kept);
            return false;
        }
        return true;
    }

    /** The connection is no longer idle (its next stream began, or it closed). */
    void removeIdle(KeptConnection kept) {
        idle.remove(kept);
    }

    /**
     * Closes the connection idle longest, which gives its memory claim back; false when no idle
     * connection is left. One that its sender's NEXT has just taken is passed over.
     */
    boolean closeOldestIdle() {
        KeptConnection oldest;
        while ((oldest = idle.poll()) != null) {
            if (oldest.closeIfIdle()) {
                SessionBase.log.debug("closed idle {} to make room in the memory budget", oldest.describe());
                return true;
            }
        }
        return false;
    }

    /** Idle connections now; for tests. */
    int idleCount() {
        return idle.size();
    }

    /** The receiver is disposed: closes the idle connections now, and those kept from now on at once. */
    void closeIdle() {
        closed = true;
        for (KeptConnection k : List.copyOf(idle)) {
            k.close();
        }
        idle.clear();
    }

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
