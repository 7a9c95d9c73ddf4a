package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;

/**
 * A wait on an RDMA channel's file descriptor that another thread can cut short: an eventfd
 * polled together with the channel (in the project's {@code libdisni}, {@code rdmaflux_waker.c}).
 *
 * <p>The connection's I/O thread and the listener's thread wait here instead of in DiSNI's timed
 * {@code getCqEvent}/{@code getCmEvent}, so that {@code close()}, {@code dispose()} and
 * {@link RdmaTransport#shutdown} act at once rather than when a timeout runs out. That matters
 * at exit too: the JVM waits up to 300 ms for threads inside native calls before it ends.
 *
 * <p>{@link #await} and {@link #close} belong to the one thread that owns the waiter;
 * {@link #wake} may be called from any thread, also after close (then it does nothing).
 */
final class Waker implements AutoCloseable {

    /** The first descriptor given to {@link #await} is readable. */
    static final int READY_FIRST = 1;
    /** The second descriptor given to {@link #await} is readable. */
    static final int READY_SECOND = 2;
    /** {@link #wake} was called since the last {@link #await}. */
    static final int WOKEN = 4;

    /** The eventfd; -1 once closed. Guarded by this, so a wake-up never hits a reused number. */
    private int fd;

    Waker() throws IOException {
        fd = create0();
    }

    /** Cuts the current (or the next) {@link #await} short. */
    synchronized void wake() {
        if (fd >= 0) {
            wake0(fd);
        }
    }

    /**
     * Waits at most {@code timeoutMs} until {@code first} or {@code second} (-1: none) is
     * readable or {@link #wake} is called, and clears the wake-up.
     *
     * @return a mask of {@link #READY_FIRST}, {@link #READY_SECOND} and {@link #WOKEN}; 0 when
     *         the time ran out
     */
    int await(int first, int second, int timeoutMs) throws IOException {
        int own = fd;
        if (own < 0) {
            return WOKEN;
        }
        return await0(own, first, second, timeoutMs);
    }

    /**
     * The file descriptor of a completion channel, to wait on. DiSNI's own {@code getFd()}
     * answers 0 (standard input) for every channel: it never asks the native side.
     */
    static int fdOf(IbvCompChannel channel) {
        return completionChannelFd0(((NatObject) channel).getObjId());
    }

    /** The file descriptor of a connection-manager event channel (see {@link #fdOf(IbvCompChannel)}). */
    static int fdOf(RdmaEventChannel channel) {
        return eventChannelFd0(((NatObject) channel).getObjId());
    }

    @Override
    public synchronized void close() {
        if (fd >= 0) {
            close0(fd);
            fd = -1;
        }
    }

    private static native int create0() throws IOException;

    private static native void wake0(int fd);

    private static native void close0(int fd);

    private static native int completionChannelFd0(long channel);

    private static native int eventChannelFd0(long channel);

    private static native int await0(int wake, int first, int second, int timeoutMs) throws IOException;
}
