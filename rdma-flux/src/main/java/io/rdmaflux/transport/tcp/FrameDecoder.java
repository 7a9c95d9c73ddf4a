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
 * Splits the TCP byte stream into frames. Data payloads are copied straight from Netty's read
 * buffers into a slot of the connection's fixed receive ring (the one copy on this path); a
 * DATA frame that finds no free slot means the sender broke the credit rule.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private final BufferPool ring;
    /** Events that arrived before the engine attached; replayed in order by {@link #attach}. */
    private final java.util.ArrayDeque<java.util.function.Consumer<FrameHandler>> early = new java.util.ArrayDeque<>();
    private FrameHandler handler;
    private final ByteBuffer header = ByteBuffer.allocate(ProtocolVersion.HEADER_BYTES);

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
            while (in.isReadable() && !failed) {
                if (type == null) {
                    readHeader(in);
                } else {
                    readPayload(in);
                }
            }
        } catch (ProtocolException e) {
            failed = true;
            emit(h -> h.onClosed(e));
            ctx.close();
        } finally {
            in.release();
        }
    }

    private void readHeader(ByteBuf in) {
        int n = Math.min(header.remaining(), in.readableBytes());
        in.readBytes(header.array(), header.position(), n);
        header.position(header.position() + n);
        if (header.hasRemaining()) {
            return;
        }
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
            control = ByteBuffer.allocate(length);
        }
        type = t;
        if (length == 0) {
            deliver();
        }
    }

    private void readPayload(ByteBuf in) {
        ByteBuffer target = type == FrameType.DATA ? slot.buffer() : control;
        int n = Math.min(target.remaining(), in.readableBytes());
        int limit = target.limit();
        target.limit(target.position() + n);
        in.readBytes(target);
        target.limit(limit);
        if (!target.hasRemaining()) {
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
            ByteBuffer c = control;
            control = null;
            c.flip();
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
