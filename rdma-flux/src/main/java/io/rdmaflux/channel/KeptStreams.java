package io.rdmaflux.channel;

import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameHandler;
import java.time.Duration;
import java.util.function.Function;

/**
 * What a receiver does with its idle kept connections: it tracks them in its {@link LiveStreams}
 * (so that a dispose closes them, and a stream short of memory closes the oldest), closes each
 * after the keep-alive, and starts the next stream when the sender's NEXT arrives. Anything else
 * from an idle sender closes the connection. An idle connection keeps its stream's memory claim
 * ({@link Admission#keepOrEnd}) until its next stream takes it over or it is gone.
 */
final class KeptStreams implements KeptConnection.Idle {

    private final LiveStreams live;
    /** Holds each idle connection's memory claim (its ring), given back when it is gone. */
    private final Admission admission;
    private final Duration keepAlive;
    /** Makes, tracks and starts the session of the next stream on a taken lease. */
    private final Function<KeptConnection.Lease, ReceiverSession> next;

    KeptStreams(LiveStreams live, Admission admission, Duration keepAlive,
                Function<KeptConnection.Lease, ReceiverSession> next) {
        this.live = live;
        this.admission = admission;
        this.keepAlive = keepAlive;
        this.next = next;
    }

    @Override
    public void onKept(KeptConnection kept) {
        if (!live.addIdle(kept)) {
            // Disposing: closed unless its sender's NEXT took it already (that stream is live).
            kept.closeIfIdle();
            return;
        }
        kept.expireAfter(keepAlive);
        if (!kept.isIdle()) {
            // Taken by its sender's NEXT, or closed, before it was tracked here: not idle any more.
            live.removeIdle(kept);
        }
    }

    @Override
    public FrameHandler onFrame(KeptConnection kept, FrameType type) {
        if (type != FrameType.NEXT) {
            SessionBase.log.debug("{} sent {} on an idle connection; closing it", kept.describe(), type);
            return null;
        }
        KeptConnection.Lease lease = kept.take();
        if (lease == null) {
            return null;
        }
        live.removeIdle(kept);
        // The session opens the NEXT with the last stream's seal, claims its memory and answers.
        return next.apply(lease);
    }

    @Override
    public void onGone(KeptConnection kept) {
        live.removeIdle(kept);
        admission.connectionGone(kept);
    }
}
