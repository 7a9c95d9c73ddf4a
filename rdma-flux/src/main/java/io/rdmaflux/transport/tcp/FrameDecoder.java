package io.rdmaflux.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameHandler;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Splits the TCP byte stream into frames, each DATA payload into a slot of the connection's
 * fixed receive ring; a DATA frame that finds no free slot means the sender broke the credit
 * rule. With {@link SlotReadAllocator} installed, the socket reads land directly where
 * {@link #nextReadBuffer} says (header or slot) and data is never copied; control payloads,
 * and any other buffer Netty delivers, are copied in, byte for byte the same.
 *
 * <p>Until {@link #acceptData()} (the peer has authenticated) a connection costs only its
 * 8-byte header and, while a control frame is being read, that frame's payload on the heap:
 * DATA frames are refused before a slot is taken, and control frames are limited to
 * {@link ProtocolVersion#MAX_SMALL_CONTROL_PAYLOAD}. A framing error stops decoding and is
 * reported to the engine, which answers ERROR and closes; bytes that follow are discarded.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    /** Size of the throw-away buffers that reads go to after a framing error. */
    private static final int DISCARD_BYTES = 4096;

    private final BufferPool ring;
    /** Events that arrived before the engine attached; replayed in order by {@link #attach}. */
    private final java.util.ArrayDeque<java.util.function.Consumer<FrameHandler>> early = new java.util.ArrayDeque<>();
    private FrameHandler handler;
    private final ByteBuffer header = ByteBuffer.allocateDirect(ProtocolVersion.HEADER_BYTES);
    /** The buffer last given to the socket read, whose bytes are already in place. */
    private ByteBuf handedOut;

    private boolean dataAccepted;
    private FrameType type;
    private Chunk slot;
    /** The control payload being read: a heap buffer of exactly its length, handed to the engine as is. */
    private ByteBuffer control;
    private boolean failed;

    FrameDecoder(BufferPool ring) {
        this.ring = ring;
    }

    /**
     * Attaches the engine. Must run on the channel's event loop, like every other method here,
     * so that frames read before the engine was ready are neither lost nor reordered.
     */
    void attach(FrameHandler h) {
        handler = h;
        while (!early.isEmpty()) {
            early.poll().accept(h);
        }
    }

    /**
     * The engine is done with the connection: whatever arrives from now on is read and dropped,
     * and the frame being read gives its slot back, so that a closing connection holds no slot.
     */
    void discard() {
        failed = true;
        handedOut = null;
        dropPartialFrame();
    }

    /** From now on DATA frames take receive slots, and METADATA-sized control frames are read. */
    void acceptData() {
        dataAccepted = true;
    }

    /** Between two streams on a kept connection: DATA is refused again until {@link #acceptData()}. */
    void stopData() {
        dataAccepted = false;
    }

    private void emit(java.util.function.Consumer<FrameHandler> event) {
        if (handler != null) {
            event.accept(handler);
        } else {
            early.add(event);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (in == handedOut) {
                handedOut = null;
                if (!failed && in.isReadable()) {
                    ByteBuffer target = target();
                    target.position(target.position() + in.readableBytes());
                    targetAdvanced(target);
                }
                return;
            }
            while (in.isReadable() && !failed) {
                copyIn(in);
            }
        } catch (RdmaFluxException e) {
            // The engine answers ERROR and closes; until then, whatever arrives is discarded.
            failed = true;
            dropPartialFrame();
            emit(h -> h.onClosed(e));
        } finally {
            in.release();
        }
    }

    /** The buffer the next bytes of the stream belong in. */
    private ByteBuffer target() {
        return type == null ? header : type == FrameType.DATA ? slot.buffer() : control;
    }

    /** Bytes the next read may take: the rest of the current header, control frame or slot. */
    int nextReadSize() {
        return failed ? DISCARD_BYTES : target().remaining();
    }

    /**
     * A buffer for the socket to read into, never crossing a frame boundary: over the header or
     * slot region where the next bytes belong (read in place), or, for a control payload or
     * after a framing error, a pooled buffer whose bytes are copied or dropped.
     */
    ByteBuf nextReadBuffer(ByteBufAllocator alloc) {
        if (failed) {
            return alloc.directBuffer(DISCARD_BYTES);
        }
        ByteBuffer target = target();
        if (target == control) {
            return alloc.directBuffer(control.remaining());
        }
        handedOut = io.netty.buffer.Unpooled.wrappedBuffer(target.slice(target.position(), target.remaining())).clear();
        return handedOut;
    }

    /** Copies what fits of {@code in} into the current target. */
    private void copyIn(ByteBuf in) {
        ByteBuffer target = target();
        int n = Math.min(target.remaining(), in.readableBytes());
        int limit = target.limit();
        target.limit(target.position() + n);
        in.readBytes(target);
        target.limit(limit);
        targetAdvanced(target);
    }

    /** Acts on a target that received bytes: a complete header or payload moves the frame on. */
    private void targetAdvanced(ByteBuffer target) {
        if (target.hasRemaining()) {
            return;
        }
        if (type == null) {
            headerComplete();
        } else {
            deliver();
        }
    }

    private void headerComplete() {
        header.flip();
        FrameType t = FrameType.of(header.get() & 0xff);
        header.get();
        header.getShort();
        int length = header.getInt();
        header.clear();
        if (t == FrameType.DATA) {
            if (!dataAccepted) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "DATA frame before authentication");
            }
            if (length <= 0 || length > ring.bufferSize()) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "DATA frame of " + length
                        + " bytes exceeds the receive slot size " + ring.bufferSize());
            }
            try {
                slot = ring.acquire();
            } catch (IllegalStateException e) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "sender exceeded its credits");
            }
            slot.buffer().limit(length);
        } else {
            int max = dataAccepted ? ProtocolVersion.MAX_CONTROL_PAYLOAD : ProtocolVersion.MAX_SMALL_CONTROL_PAYLOAD;
            if (length < 0 || length > max) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, t + " frame of " + Integer.toUnsignedString(length)
                        + " bytes is too large (at most " + max + " here)");
            }
            control = ByteBuffer.allocate(length);
        }
        type = t;
        if (length == 0) {
            deliver();
        }
    }

    private void deliver() {
        FrameType t = type;
        type = null;
        if (t == FrameType.DATA) {
            Chunk c = slot;
            slot = null;
            c.buffer().flip();
            emit(h -> h.onDataFrame(c));
        } else {
            ByteBuffer c = control.flip();
            control = null;
            emit(h -> h.onControlFrame(t, c));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dropPartialFrame();
        if (!failed) {
            emit(h -> h.onClosed(null));
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        dropPartialFrame();
        if (!failed) {
            failed = true;
            // A socket error reads "recvAddress(..) failed with error(-104): Connection reset
            // by peer" from Netty; the session puts the cause into its message.
            Throwable said = cause instanceof IOException ? new IOException(TcpTransport.reason(cause), cause) : cause;
            emit(h -> h.onClosed(said));
        }
        ctx.close();
    }

    private void dropPartialFrame() {
        control = null;
        if (slot != null) {
            slot.release();
            slot = null;
        }
    }
}
