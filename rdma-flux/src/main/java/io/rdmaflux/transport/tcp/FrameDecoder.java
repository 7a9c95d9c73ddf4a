package io.rdmaflux.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;

/**
 * Splits the TCP byte stream into frames, each DATA payload into a slot of the connection's
 * fixed receive ring; a DATA frame that finds no free slot means the sender broke the credit
 * rule. With {@link SlotReadAllocator} installed, the socket reads land directly where
 * {@link #nextReadBuffer()} says (header, control buffer or slot) and nothing is copied; any
 * other buffer Netty delivers is copied in, byte for byte the same.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private final BufferPool ring;
    /** Events that arrived before the engine attached; replayed in order by {@link #attach}. */
    private final java.util.ArrayDeque<java.util.function.Consumer<FrameHandler>> early = new java.util.ArrayDeque<>();
    private FrameHandler handler;
    private final ByteBuffer header = ByteBuffer.allocateDirect(ProtocolVersion.HEADER_BYTES);
    /** Where control payloads are read; copied out on delivery (they are small). */
    private final ByteBuffer controlArea = ByteBuffer.allocateDirect(ProtocolVersion.MAX_CONTROL_PAYLOAD);
    /** The buffer last given to the socket read, whose bytes are already in place. */
    private ByteBuf handedOut;

    private FrameType type;
    private Chunk slot;
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
        } catch (ProtocolException e) {
            failed = true;
            emit(h -> h.onClosed(e));
            ctx.close();
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
        return failed ? ProtocolVersion.HEADER_BYTES : target().remaining();
    }

    /**
     * A buffer over the region where the next bytes belong, for the socket to read into.
     * Its capacity is exactly that region, so a read never crosses a frame boundary.
     */
    ByteBuf nextReadBuffer() {
        ByteBuffer region = failed ? ByteBuffer.allocateDirect(ProtocolVersion.HEADER_BYTES)
                : target().slice(target().position(), target().remaining());
        handedOut = io.netty.buffer.Unpooled.wrappedBuffer(region).clear();
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
            if (length <= 0 || length > ring.bufferSize()) {
                throw new ProtocolException(ErrorCode.PROTOCOL, "DATA frame of " + length
                        + " bytes exceeds the receive slot size " + ring.bufferSize());
            }
            try {
                slot = ring.acquire();
            } catch (IllegalStateException e) {
                throw new ProtocolException(ErrorCode.PROTOCOL, "sender exceeded its credits");
            }
            slot.buffer().limit(length);
        } else {
            if (length < 0 || length > ProtocolVersion.MAX_CONTROL_PAYLOAD) {
                throw new ProtocolException(ErrorCode.PROTOCOL, t + " frame of " + length + " bytes is too large");
            }
            control = controlArea.clear().limit(length);
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
            control.flip();
            // The control area is reused for the next frame; the engine may get this one later.
            ByteBuffer c = ByteBuffer.allocate(control.remaining()).put(control).flip();
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
            emit(h -> h.onClosed(cause));
        }
        ctx.close();
    }

    private void dropPartialFrame() {
        if (slot != null) {
            slot.release();
            slot = null;
        }
    }
}
