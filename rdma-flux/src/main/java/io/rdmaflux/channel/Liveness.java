package io.rdmaflux.channel;

import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;

/**
 * A session's clock on its peer: when it last heard from it and last sent to it, and a tick
 * once a heartbeat that says what is due (a handshake or idle timeout, a PING). Kept apart from
 * {@link SessionBase} so that the timing rules live in one place, whatever the frames are.
 */
final class Liveness {

    /** What a tick finds due. */
    enum Due { NOTHING, HANDSHAKE_TIMEOUT, IDLE_TIMEOUT, PING }

    private final ChannelOptions options;
    private final Timers timers;
    private final long startedAt;
    private volatile long lastHeard;
    private volatile long lastSent;
    private Disposable timer;

    Liveness(ChannelOptions options, Timers timers) {
        this.options = options;
        this.timers = timers;
        this.startedAt = timers.now();
        this.lastHeard = startedAt;
        this.lastSent = startedAt;
    }

    /** Runs {@code tick} once a heartbeat until {@link #stop()}. */
    void start(Runnable tick) {
        long period = options.heartbeat().toMillis();
        timer = timers.scheduler().schedulePeriodically(tick, period, period, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (timer != null) {
            timer.dispose();
        }
    }

    /** The peer showed a sign of life. */
    void heard() {
        lastHeard = timers.now();
    }

    /** This side sent something: the peer needs no PING for a while. */
    void sent() {
        lastSent = timers.now();
    }

    /**
     * What is due now. Checked once a heartbeat: a timeout fires at the first tick at or after
     * its deadline. No PING during the handshake (its own timeout is the clock there): a sender's
     * frames before the receiver's AUTH are then exactly HELLO and AUTH, which is all the RDMA
     * transport posts receives for until it has set up the ring.
     */
    Due due(boolean authenticated) {
        long now = timers.now();
        if (!authenticated && now - startedAt >= options.handshakeTimeout().toNanos()) {
            return Due.HANDSHAKE_TIMEOUT;
        } else if (now - lastHeard >= options.idleTimeout().toNanos()) {
            return Due.IDLE_TIMEOUT;
        } else if (authenticated && now - lastSent >= options.heartbeat().toNanos() / 2) {
            return Due.PING;
        }
        return Due.NOTHING;
    }
}
