package io.rdmaflux.transport.rdma;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.TransportOptions;

/**
 * How one connection's registered memory is laid out, from its {@link TransportOptions} and its
 * side. The engine's roles are fixed: the side that connects sends the stream, the side that
 * accepts receives it; so each side registers only what its role uses.
 * <ul>
 *   <li>control receives: {@code controlReceives} slots of {@link #SMALL} bytes, posted when the
 *       connection is set up; every frame a side takes before it accepts data lands in one;</li>
 *   <li>the data ring (accepting side only, registered when the peer has authenticated):
 *       {@code receiveSlots + RING_CONTROL} slots of {@link #stride()} bytes (the frame size
 *       rounded up to whole pages), each with a posted receive;</li>
 *   <li>the data send slots (connecting side only): {@code sendSlots} slots of {@link #stride()} bytes;</li>
 *   <li>the control send slots: {@code CONTROL_SENDS} slots of {@link #controlSize()} bytes.</li>
 * </ul>
 * Before its peer authenticates, an accepting side therefore holds {@link #setupBytes()}: two
 * small receives and its small control send slots, whatever the frame size.
 * {@link RdmaTransport#registeredBytesReceiving}, {@link RdmaTransport#registeredBytesSending} and
 * {@link RdmaTransport#registeredBytesUnauthenticated} publish these sums, so that tools advising
 * on the locked-memory limit use this formula, not a copy of it.
 *
 * @param accepting       whether this is the accepting (receiving) side
 * @param stride          bytes per ring or data send slot
 * @param ringCount       receives in the data ring (0 on the connecting side)
 * @param sendCount       data send slots (0 on the accepting side)
 * @param controlSize     bytes per control send slot
 * @param controlReceives small receives posted at set-up
 */
record SlotLayout(boolean accepting, int stride, int ringCount, int sendCount, int controlSize, int controlReceives) {

    static final int PAGE = 4096;
    /** Size of a control receive: the largest frame a peer may send before it authenticated. */
    static final int SMALL = ProtocolVersion.MAX_SMALL_CONTROL_PAYLOAD;
    /**
     * Control receives of an accepting side: one for the peer's HELLO and one for its AUTH. They
     * are consumed before the ring exists, so no small receive is ever left ahead of the ring
     * for a data frame to land in; a PING in between has its receive posted again.
     */
    static final int HANDSHAKE_RECEIVES = 2;
    /**
     * Control receives of a connecting side, which only ever takes control frames (at most 4 KiB
     * each): HELLO, AUTH, CREDIT (one per batch of freed slots, a few at a time), PING, END_ACK
     * and ERROR, each posted again as soon as the engine has taken it.
     */
    static final int CONNECTING_CONTROL_RECEIVES = 16;
    /**
     * Ring receives beyond the engine's credits, for the sender's control frames after AUTH:
     * METADATA, END and ERROR once each, PING only when it has sent nothing for a while, each
     * posted again as soon as the engine has taken it. Each costs a whole frame-sized slot.
     */
    static final int RING_CONTROL = 4;
    /** Control frames in flight at once. */
    static final int CONTROL_SENDS = 16;
    /** Largest control frame a connecting side sends (METADATA); the protocol's limit. */
    static final int CONTROL_MAX = ProtocolVersion.MAX_CONTROL_PAYLOAD;

    /** The side that connects and sends data. */
    static SlotLayout connecting(TransportOptions options) {
        int stride = stride(options);
        return new SlotLayout(false, stride, 0, options.sendSlots(), Math.min(stride, CONTROL_MAX),
                CONNECTING_CONTROL_RECEIVES);
    }

    /** The side that accepts a connection and receives data; it sends control frames only. */
    static SlotLayout accepting(TransportOptions options) {
        return new SlotLayout(true, stride(options), options.receiveSlots() + RING_CONTROL, 0, SMALL,
                HANDSHAKE_RECEIVES);
    }

    private static int stride(TransportOptions options) {
        return (options.frameSize() + PAGE - 1) / PAGE * PAGE;
    }

    long ringBytes() {
        return (long) stride * ringCount;
    }

    long sendBytes() {
        return (long) stride * sendCount;
    }

    long controlBytes() {
        return (long) controlSize * CONTROL_SENDS;
    }

    long controlReceiveBytes() {
        return (long) SMALL * controlReceives;
    }

    /** Bytes registered when the connection is set up, before the peer has authenticated. */
    long setupBytes() {
        return sendBytes() + controlBytes() + controlReceiveBytes();
    }

    /** Bytes one connection registers (pins) in all, once the data ring is up. */
    long registeredBytes() {
        return setupBytes() + ringBytes();
    }

    /** Receives that may be posted at once: the queue pair's receive depth. */
    int receiveDepth() {
        return ringCount + controlReceives;
    }

    /** Each region is one direct buffer, which Java sizes with an int. */
    void requireAllocatable() {
        if (ringBytes() > Integer.MAX_VALUE - PAGE || sendBytes() > Integer.MAX_VALUE - PAGE) {
            throw new RdmaFluxException(ErrorCode.INTERNAL, "RDMA buffers too large: "
                    + Math.max(ringCount, sendCount) + " x " + stride + " bytes; lower the frame size or the number of slots");
        }
    }
}
