package io.rdmaflux.transport.tcp;

import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.netty.resources.LoopResources;

/**
 * One set of event loops and what was opened on them: the frame connections and listeners.
 * Stopping it stops the loops and then ends what they left open.
 *
 * <p>Why: a loop shutting down closes the channels registered with it, but a connection or
 * listener that a racing caller registers during the shutdown can be registered after the
 * loop's last sweep. Nothing would then ever read, write, close or report it: a stream on it
 * hung until its handshake timeout, and its socket stayed open for the life of the process.
 * {@link #stop} tells each such connection's engine at once and closes its socket.
 */
final class LoopGeneration {

    private static final Logger log = LoggerFactory.getLogger(LoopGeneration.class);

    /** Something opened on these loops that must end when they stop. */
    interface Member {
        /** The loops are gone (or going): end, from the caller's thread. */
        void loopsStopped();
    }

    private final LoopResources loops;
    private final boolean stoppable;
    private final Set<Member> open = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    private LoopGeneration(LoopResources loops, boolean stoppable) {
        this.loops = loops;
        this.stoppable = stoppable;
    }

    /** The transport's own loops, which {@link #stop} stops. */
    static LoopGeneration owned(LoopResources loops) {
        return new LoopGeneration(loops, true);
    }

    /** A caller's loops: theirs to dispose, so {@link #stop} is never called on them. */
    static LoopGeneration borrowed(LoopResources loops) {
        return new LoopGeneration(loops, false);
    }

    LoopResources loops() {
        return loops;
    }

    /**
     * Tracks {@code member} until {@code channel} closes. One that arrives after {@link #stop}
     * (it was registered in the race) ends at once.
     */
    void add(Member member, Channel channel) {
        if (!stoppable) {
            return;
        }
        open.add(member);
        channel.closeFuture().addListener(f -> open.remove(member));
        // Added first, then looked: stop() sets the flag first, then looks, so one of the two
        // sees the other and the member is ended at least once (ending is idempotent).
        if (stopped && open.remove(member)) {
            end(member);
        }
    }

    /** Ends one member; one that fails must not keep the others from being ended. */
    private static void end(Member member) {
        try {
            member.loopsStopped();
        } catch (RuntimeException e) {
            log.debug("ending {} after its loops stopped failed: {}", member, e.toString());
        }
    }

    /**
     * Stops the loops, waiting at most {@code timeout}, then ends every member they left open,
     * whether or not they stopped in time.
     */
    void stop(Duration timeout) {
        try {
            loops.disposeLater(Duration.ZERO, timeout).block(timeout.plusMillis(100));
        } finally {
            stopped = true;
            for (Member m : open) {
                if (open.remove(m)) {
                    end(m);
                }
            }
        }
    }

    /** How many members are tracked: for leak checks in tests. */
    int tracked() {
        return open.size();
    }

    /**
     * Closes {@code channel}: through its loop while that still runs, else its socket directly,
     * since no loop will ever close it. Only a terminated loop's channel is touched from here:
     * closing a descriptor that a live loop still polls could close a reused number.
     */
    static void closeOrphan(Channel channel) {
        if (!channel.eventLoop().isTerminated()) {
            channel.close();
            return;
        }
        if (channel instanceof UnixChannel unix) {
            try {
                unix.fd().close();
            } catch (java.io.IOException e) {
                log.debug("closing the socket of {} failed: {}", channel, e.toString());
            }
        }
        // A NIO channel's socket is not reachable from outside its loop; epoll is the usual case.
    }
}
