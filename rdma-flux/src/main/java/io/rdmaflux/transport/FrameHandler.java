package io.rdmaflux.transport;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.FrameType;
import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What a transport delivers to the protocol engine. A transport calls these methods from its
 * own I/O thread, one call at a time for a given connection, and never blocks in them.
 */
public interface FrameHandler {

    /**
     * A control frame (any type but {@link FrameType#DATA}). The payload is only valid during
     * the call; copy what must be kept.
     */
    void onControlFrame(FrameType type, ByteBuffer payload);

    /**
     * A data frame, as a lease on one receive slot. The engine releases it exactly once;
     * releasing it returns the slot to the ring (on RDMA: posts its receive again).
     */
    void onDataFrame(Chunk payload);

    /** A data frame handed to {@link FrameConnection#sendData} has left its send slot. */
    void onSendSlotFree();

    /**
     * The connection is gone, or no further frame can be read from it. {@code cause} is null
     * when the peer closed it in an orderly way, which the engine treats as truncation unless
     * the stream had already ended; a {@link io.rdmaflux.error.RdmaFluxException} when the
     * peer broke the framing (unknown frame type, a frame too large, DATA before
     * {@link FrameConnection#acceptData()}), after which the engine answers ERROR and closes.
     */
    void onClosed(Throwable cause);

    /**
     * A handler for a connection that carries no data for its owner (one refused at the door,
     * say): control frames go to {@code onControl}, data frames are released at once so that
     * their slots return, and the end goes to {@code onClosed}.
     */
    static FrameHandler controlOnly(BiConsumer<FrameType, ByteBuffer> onControl, Consumer<Throwable> onClosed) {
        return new FrameHandler() {
            @Override
            public void onControlFrame(FrameType type, ByteBuffer payload) {
                onControl.accept(type, payload);
            }

            @Override
            public void onDataFrame(Chunk payload) {
                payload.release();
            }

            @Override
            public void onSendSlotFree() {
            }

            @Override
            public void onClosed(Throwable cause) {
                onClosed.accept(cause);
            }
        };
    }
}
