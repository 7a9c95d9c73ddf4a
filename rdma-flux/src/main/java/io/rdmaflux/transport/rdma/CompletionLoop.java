package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaEventChannel;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A connection's I/O thread. Each round it waits (through a {@link Waker}, so the connection
 * can cut the wait short) for a completion event or, for a client, an event on its own
 * connection-manager channel; takes, acknowledges and re-arms the completion event; then polls
 * the completion queue until it is empty, because Soft-RoCE raises no new event for
 * completions queued before the re-arm. Every completion and CM event goes to the
 * {@link Target}, on this thread. When the target is done the loop drains once more and hands
 * over to {@link Target#ended}. What it did is logged at debug level at the end.
 */
final class CompletionLoop implements Runnable {

    private static final Logger log = Loggers.getLogger(CompletionLoop.class);

    /** What the loop serves; every call comes from the loop's thread. */
    interface Target {

        /** One completion, valid during the call only. */
        void onCompletion(IbvWC wc);

        /** A connection-manager event from the client's own channel. */
        void onCmEvent(int type);

        /** Whether draining should stop (the connection failed). */
        boolean failed();

        /** Checked after every round: whether the loop should end. */
        boolean done();

        /** How long the next wait may last, in ms. */
        int waitMillis();

        /** The loop has ended, normally ({@code error} null) or by an unexpected throwable. */
        void ended(Throwable error);
    }

    private final RdmaResources resources;
    private final RdmaEventChannel ownChannel;
    private final Waker waker;
    private final Target target;
    private final String name;

    private long events;
    private long timeouts;
    private long polls;
    private long completions;

    /**
     * @param ownChannel a client's own CM event channel, or null (a listener serves accepted
     *                   connections' events)
     */
    CompletionLoop(RdmaResources resources, RdmaEventChannel ownChannel, Waker waker, Target target, String name) {
        this.resources = resources;
        this.ownChannel = ownChannel;
        this.waker = waker;
        this.target = target;
        this.name = name;
    }

    @Override
    public void run() {
        long started = System.nanoTime();
        Throwable error = null;
        try {
            int cqFd = resources.completionChannelFd();
            int cmFd = ownChannel == null ? -1 : Waker.fdOf(ownChannel);
            do {
                int ready = waker.await(cqFd, cmFd, target.waitMillis());
                if ((ready & Waker.READY_FIRST) != 0 && resources.takeEvent()) {
                    events++;
                } else if (ready == 0) {
                    timeouts++;
                }
                drain();
                if ((ready & Waker.READY_SECOND) != 0) {
                    RdmaCmEvent ev = ownChannel.getCmEvent(0);
                    if (ev != null) {
                        ev.ackEvent();
                        target.onCmEvent(ev.getEvent());
                    }
                }
            } while (!target.done());
            // What completed just before the end (a peer's last frames before its disconnect).
            drain();
        } catch (Throwable t) {
            error = t;
        } finally {
            target.ended(error);
            log.debug("{}: {} ms, {} events, {} wait timeouts, {} polls, {} completions", name,
                    (System.nanoTime() - started) / 1_000_000, events, timeouts, polls, completions);
        }
    }

    private void drain() throws java.io.IOException {
        while (!target.failed()) {
            int n = resources.poll();
            polls++;
            if (n <= 0) {
                return;
            }
            completions += n;
            for (int i = 0; i < n; i++) {
                target.onCompletion(resources.completion(i));
            }
        }
    }
}
