package io.rdmaflux.transport;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.FrameType;
import java.nio.ByteBuffer;
import reactor.core.publisher.Mono;

/**
 * One connection of a transport, as the protocol engine sees it: a duplex pipe of frames with a
 * fixed ring of receive slots and a fixed number of send slots.
 *
 * <p>The engine owns flow control: it sends a data frame only while it holds a credit from the
 * peer (a free receive slot over there) and a free send slot here. A transport may therefore
 * assume that a data frame always finds a receive slot; one that does not is a protocol error.
 * Control frames are small and never limited by credits; each transport keeps room for them.
 *
 * <p>All methods may be called from any thread and never block.
 */
public interface FrameConnection {

    /** Starts delivering frames to {@code handler}. Called once, before any send. */
    void start(FrameHandler handler);

    /**
     * The peer has authenticated and is about to be given credits: from now on this side takes
     * data frames and METADATA-sized control frames. Until this is called a transport holds no
     * receive slot for the connection, treats a DATA frame as a protocol error and refuses
     * control frames larger than {@link io.rdmaflux.protocol.ProtocolVersion#MAX_SMALL_CONTROL_PAYLOAD},
     * so that a peer that never authenticates costs a small fixed amount. The receive ring must
     * be ready for frames sent after any frame queued after this call (on RDMA: registered and
     * posted before this returns). A sender, which receives no data, never calls it. Idempotent.
     *
     * <p>Before it, a peer sends at most two frames besides PING (the protocol's HELLO and
     * AUTH): the RDMA transport holds exactly two small receives until then, because receives
     * are taken in the order they were posted and none may be left ahead of the ring. Code
     * that drives a transport without the engine must keep to that shape.
     *
     * <p>The default does nothing, for transports that set everything up front.
     */
    default void acceptData() {
    }

    /**
     * Whether this transport can keep a connection idle between two streams, taking no DATA
     * meanwhile ({@link #idle()}). An idle connection keeps its receive ring for the next stream;
     * a receiver counts it in its memory budget until the connection closes. The default is
     * false: the engine then closes the connection after each stream, as before.
     */
    default boolean canIdle() {
        return false;
    }

    /**
     * The stream on this connection ended well and the connection is kept for the next one:
     * take no DATA frame, as before {@link #acceptData()}, until the next call to it; the
     * receive ring's buffers stay for that stream ({@link #close()} lets them go). Only called
     * when {@link #canIdle()}. Never blocks.
     */
    default void idle() {
    }

    /** Queues a control frame; the payload (position to limit) is copied before returning. */
    void sendControl(FrameType type, ByteBuffer payload);

    /**
     * Queues a data frame. The transport takes ownership of the chunk and releases it once it
     * no longer needs its bytes, then calls {@link FrameHandler#onSendSlotFree()}.
     * The chunk holds at most {@link #maxFramePayload()} bytes.
     */
    void sendData(Chunk payload);

    /** Data frames that may be in flight in this transport at once. */
    int sendSlots();

    /** Size of this side's receive ring: the credits the peer starts with. */
    int receiveSlots();

    /** Largest data payload a receive slot holds, in bytes. */
    int maxFramePayload();

    /** Which transport this is, for messages and {@code -v}. */
    String name();

    /** A short description for messages, such as {@code tcp 127.0.0.1:7691}. */
    String describe();

    /**
     * Closes the connection once queued frames have been written (or at once, if that cannot
     * be done), releasing every slot and resource. Idempotent.
     */
    void close();

    /**
     * Completes once the connection is closed and what was queued before {@link #close()} has
     * been written (or could not be). The engine reports a stream's outcome only then, so a
     * process that exits on success cannot cut off its own last frame (END_ACK).
     */
    Mono<Void> onClose();
}
