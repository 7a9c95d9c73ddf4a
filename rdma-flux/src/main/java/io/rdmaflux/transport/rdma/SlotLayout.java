package io.rdmaflux.transport.rdma;

import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.transport.TransportOptions;

/**
 * How one connection's registered memory is laid out, from its {@link TransportOptions}: three
 * page-aligned regions allocated once and registered for the connection's life.
 * <ul>
 *   <li>the receive ring: {@code receiveSlots + CONTROL_RECEIVES} slots of {@link #stride()}
 *       bytes (the frame size rounded up to whole pages), each with a posted receive;</li>
 *   <li>the data send slots: {@code sendSlots} slots of {@link #stride()} bytes;</li>
 *   <li>the control send slots: {@code CONTROL_SENDS} slots of {@link #controlSize()} bytes.</li>
 * </ul>
 * {@link RdmaTransport#registeredBytesPerConnection} publishes {@link #registeredBytes()}, so
 * that tools advising on the locked-memory limit use this formula, not a copy of it.
 */
record SlotLayout(int stride, int receiveCount, int sendCount, int controlSize) {

    static final int PAGE = 4096;
    /** Receives posted beyond the engine's credits, for control frames. */
    static final int CONTROL_RECEIVES = 8;
    /** Control frames in flight at once. */
    static final int CONTROL_SENDS = 16;
    /** Largest control frame; the protocol's are far smaller. */
    static final int CONTROL_MAX = 64 * 1024;

    static SlotLayout of(TransportOptions options) {
        int stride = (options.frameSize() + PAGE - 1) / PAGE * PAGE;
        return new SlotLayout(stride, options.receiveSlots() + CONTROL_RECEIVES, options.sendSlots(),
                Math.min(stride, CONTROL_MAX));
    }

    long ringBytes() {
        return (long) stride * receiveCount;
    }

    long sendBytes() {
        return (long) stride * sendCount;
    }

    long controlBytes() {
        return (long) controlSize * CONTROL_SENDS;
    }

    /** Bytes one connection registers (pins) in all. */
    long registeredBytes() {
        return ringBytes() + sendBytes() + controlBytes();
    }

    /** Each region is one direct buffer, which Java sizes with an int. */
    void requireAllocatable() {
        if (ringBytes() > Integer.MAX_VALUE - PAGE || sendBytes() > Integer.MAX_VALUE - PAGE) {
            throw new ProtocolException(ErrorCode.INTERNAL, "RDMA buffers too large: " + receiveCount + " x "
                    + stride + " bytes; lower the frame size or the number of slots");
        }
    }
}
