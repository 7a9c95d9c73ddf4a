package io.rdmaflux.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.SocketAddresses;
import io.rdmaflux.transport.TransportOptions;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;

/**
 * A frame connection over one reactor-netty TCP connection. Frames are an 8-byte header
 * (type, flags, reserved, payload length) followed by the payload; data payloads are written
 * from the caller's buffer without copying and released when Netty has written them.
 */
final class TcpFrameConnection implements FrameConnection, LoopGeneration.Member {

    private static final long LINGER_SECONDS = 5;

    private final Connection connection;
    private final Channel channel;
    private final TransportOptions options;
    private final BufferPool ring;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set once the engine was told that the loops stopped under it; it is told once. */
    private final AtomicBoolean toldStopped = new AtomicBoolean();
    private volatile boolean loopsStopped;
    private final FrameDecoder decoder;
    private volatile FrameHandler handler;

    TcpFrameConnection(Connection connection, TransportOptions options) {
        this.connection = connection;
        this.channel = connection.channel();
        this.options = options;
        this.ring = new BufferPool("tcp-receive-ring", options.frameSize(), options.receiveSlots());
        this.decoder = new FrameDecoder(ring);
        // Called on the event loop as the connection becomes active, before its first read.
        connection.addHandlerLast("rdmaflux-frames", decoder);
        channel.config().setRecvByteBufAllocator(new SlotReadAllocator(decoder));
        // reactor-netty starts connections in manual-read mode until its own inbound is
        // subscribed; frames are consumed by the decoder instead, paced by credits.
        channel.config().setAutoRead(true);
    }

    @Override
    public void start(FrameHandler handler) {
        this.handler = handler;
        if (loopsStopped) {
            tellStopped(handler);
            return;
        }
        channel.eventLoop().execute(() -> decoder.attach(handler));
    }

    /**
     * The transport's loops stopped with this connection open ({@link LoopGeneration}): no
     * frame will be read or written any more, and no close reported, so the engine hears it
     * here, from the stopping thread, and the socket is closed.
     */
    @Override
    public void loopsStopped() {
        loopsStopped = true;
        // start() sets the handler, then looks at the flag; this sets the flag, then looks at
        // the handler: whichever runs second tells the engine.
        FrameHandler h = handler;
        if (h != null) {
            tellStopped(h);
        }
        if (closed.compareAndSet(false, true)) {
            ring.close();
        }
        if (!channel.eventLoop().isTerminated()) {
            // Loops that outlived the shutdown's wait: the engine was told, so no second report.
            try {
                inOrder(decoder::discard, () -> { });
            } catch (RejectedExecutionException e) {
                // Terminated meanwhile: nothing will report anything any more.
            }
        }
        LoopGeneration.closeOrphan(channel);
    }

    private void tellStopped(FrameHandler h) {
        if (toldStopped.compareAndSet(false, true)) {
            h.onClosed(new java.io.IOException("the tcp transport was shut down"));
        }
    }

    @Override
    public void acceptData() {
        channel.eventLoop().execute(decoder::acceptData);
    }

    @Override
    public boolean canIdle() {
        return true;
    }

    @Override
    public void idle() {
        // On the loop, behind the frames already read: a DATA frame before the next acceptData()
        // is a framing error again, as before a handshake. The ring stays (the receiver counts it
        // in its budget while idle): the next stream reuses its buffers rather than allocating
        // and zeroing new ones, which only a GC would free.
        inOrder(decoder::stopData, () -> { });
    }

    @Override
    public void sendControl(FrameType type, ByteBuffer payload) {
        ByteBuf frame = channel.alloc().buffer(ProtocolVersion.HEADER_BYTES + payload.remaining());
        writeHeader(frame, type, payload.remaining());
        frame.writeBytes(payload.duplicate());
        inOrder(() -> channel.writeAndFlush(frame, channel.voidPromise()), frame::release);
    }

    @Override
    public void sendData(Chunk payload) {
        ByteBuf header = channel.alloc().buffer(ProtocolVersion.HEADER_BYTES);
        writeHeader(header, FrameType.DATA, payload.remaining());
        // One write for header and payload: a control frame written from another thread
        // must not land between them.
        ByteBuf frame = Unpooled.wrappedUnmodifiableBuffer(header, Unpooled.wrappedBuffer(payload.buffer()));
        inOrder(() -> channel.writeAndFlush(frame).addListener(f -> {
            payload.release();
            FrameHandler h = handler;
            if (h != null && f.isSuccess()) {
                h.onSendSlotFree();
            }
        }), () -> {
            header.release();
            payload.release();
        });
    }

    /**
     * Queues a write behind every earlier one. Netty runs a write at once when called on the
     * event loop but queues it when called from another thread, so a frame sent from the event
     * loop (after a CREDIT, say) could overtake one the source's thread sent just before it:
     * the stream would arrive reordered. Going through the loop's task queue keeps one order.
     */
    private void inOrder(Runnable write, Runnable release) {
        try {
            channel.eventLoop().execute(write);
        } catch (RejectedExecutionException e) {
            // The loop was shut down (Transports.shutdown): the frame will never be written.
            release.run();
            throw e;
        }
    }

    private static void writeHeader(ByteBuf b, FrameType type, int length) {
        b.writeByte(type.code()).writeByte(0).writeShort(0).writeInt(length);
    }

    @Override
    public int sendSlots() {
        return options.sendSlots();
    }

    @Override
    public int receiveSlots() {
        return options.receiveSlots();
    }

    @Override
    public int maxFramePayload() {
        return options.frameSize();
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public String describe() {
        return "tcp " + SocketAddresses.format(channel.remoteAddress());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // The stream is over: its receive memory goes now, not when the channel closes. The
        // linger below keeps the decoder and this connection reachable for seconds, and a
        // receiver taking many streams would otherwise hold every ring it ever had meanwhile.
        ring.close();
        // Closing a socket that still has unread input makes the kernel send RST and drop
        // what is queued for sending, such as our ERROR or END_ACK. So: flush, send FIN,
        // keep reading (the decoder discards) until the peer closes too, or a deadline.
        inOrder(() -> {
            decoder.discard();
            lingerAndClose();
        }, channel::close);
    }

    private void lingerAndClose() {
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
            if (channel instanceof DuplexChannel duplex && f.isSuccess()) {
                duplex.shutdownOutput();
                channel.eventLoop().schedule(() -> {
                    channel.close();
                }, LINGER_SECONDS, TimeUnit.SECONDS);
            } else {
                channel.close();
            }
        });
    }

    @Override
    public Mono<Void> onClose() {
        return connection.onDispose();
    }

    /** The channel under this connection; for {@link LoopGeneration} tests. */
    Channel channel() {
        return channel;
    }

    /** Slots of the receive ring currently leased; for leak checks in tests. */
    int slotsInUse() {
        return ring.outstanding();
    }

    /** Buffers the receive ring has allocated in its life; for reuse checks in tests. */
    int ringAllocations() {
        return ring.allocations();
    }

    /** Bytes of direct memory the receive ring holds; for memory checks in tests. */
    long ringBytes() {
        return ring.allocatedBytes();
    }
}
