package io.rdmaflux.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.transport.FrameHandler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP frame decoder and its read allocator on Netty's {@link EmbeddedChannel}: bytes go in
 * cut exactly as a test chooses, so frame boundaries, hostile lengths and the receive ring's
 * accounting are checked without a socket.
 */
class FrameDecoderTest {

    private static final int SLOT = 64;
    private static final int SLOTS = 2;

    private final BufferPool ring = new BufferPool("test-ring", SLOT, SLOTS);
    private final FrameDecoder decoder = new FrameDecoder(ring);
    private final Recorder events = new Recorder();
    private final EmbeddedChannel channel = new EmbeddedChannel(decoder);

    FrameDecoderTest() {
        decoder.attach(events);
    }

    @AfterEach
    void noSlotLeaks() {
        events.data.forEach(Chunk::releaseQuietly);
        channel.finishAndReleaseAll();
        assertThat(ring.outstanding()).as("receive slots leased after the channel closed").isZero();
    }

    @Test
    void aFrameSplitIntoSingleBytesArrivesOnceWhole() {
        ByteBuf frame = frame(FrameType.PING, bytes(10, 7));
        while (frame.isReadable()) {
            assertThat(events.control).as("frames before the last byte").isEmpty();
            channel.writeInbound(frame.readRetainedSlice(1));
        }
        frame.release();
        assertThat(events.types).containsExactly(FrameType.PING);
        assertThat(events.control.get(0)).isEqualTo(ByteBuffer.wrap(bytes(10, 7)));
    }

    @Test
    void manyFramesInOneReadArriveInOrder() {
        decoder.acceptData();
        ByteBuf read = Unpooled.wrappedBuffer(frame(FrameType.CREDIT, bytes(4, 1)), frame(FrameType.DATA, bytes(SLOT, 2)),
                frame(FrameType.PING, new byte[0]), frame(FrameType.DATA, bytes(3, 3)), frame(FrameType.END, bytes(12, 4)));
        channel.writeInbound(read);
        assertThat(events.types).containsExactly(FrameType.CREDIT, FrameType.DATA, FrameType.PING, FrameType.DATA, FrameType.END);
        assertThat(events.data.get(0).buffer()).isEqualTo(ByteBuffer.wrap(bytes(SLOT, 2)));
        assertThat(events.data.get(1).buffer()).isEqualTo(ByteBuffer.wrap(bytes(3, 3)));
        assertThat(ring.outstanding()).as("slots held by the two DATA frames").isEqualTo(2);
        assertThat(events.closed).isEmpty();
    }

    @Test
    void dataBeforeAuthenticationTakesNoSlot() {
        channel.writeInbound(frame(FrameType.DATA, bytes(8, 1)));
        assertThat(failure()).hasMessageContaining("DATA frame before authentication");
        assertThat(ring.outstanding()).isZero();
    }

    @Test
    void aControlFrameAboveTheSmallLimitIsRefusedBeforeAuthenticationFromItsHeaderAlone() {
        channel.writeInbound(header(FrameType.METADATA, ProtocolVersion.MAX_SMALL_CONTROL_PAYLOAD + 1));
        assertThat(failure()).hasMessageContaining("4097 bytes is too large (at most 4096 here)");
    }

    @Test
    void aNegativeLengthIsRefused() {
        decoder.acceptData();
        channel.writeInbound(header(FrameType.METADATA, -1));
        assertThat(failure()).hasMessageContaining("4294967295 bytes is too large");
    }

    @Test
    void dataLargerThanASlotIsRefused() {
        decoder.acceptData();
        channel.writeInbound(header(FrameType.DATA, SLOT + 1));
        assertThat(failure()).hasMessageContaining("exceeds the receive slot size " + SLOT);
    }

    @Test
    void emptyDataIsRefused() {
        decoder.acceptData();
        channel.writeInbound(header(FrameType.DATA, 0));
        assertThat(failure()).hasMessageContaining("DATA frame of 0 bytes");
    }

    @Test
    void anUnknownFrameTypeIsRefusedAndWhatFollowsIsDiscarded() {
        ByteBuf bad = Unpooled.buffer().writeByte(200).writeByte(0).writeShort(0).writeInt(0);
        channel.writeInbound(Unpooled.wrappedBuffer(bad, frame(FrameType.PING, new byte[0])));
        channel.writeInbound(frame(FrameType.PING, new byte[0]));
        assertThat(failure()).hasMessageContaining("unknown frame type 200");
        assertThat(events.types).as("frames after the framing error").isEmpty();
    }

    @Test
    void aDataFrameBeyondTheRingBreaksTheCreditRuleAndAReleasedSlotIsReused() {
        decoder.acceptData();
        channel.writeInbound(frame(FrameType.DATA, bytes(5, 1)), frame(FrameType.DATA, bytes(5, 2)));
        assertThat(ring.outstanding()).isEqualTo(SLOTS);
        events.data.remove(0).release();
        channel.writeInbound(frame(FrameType.DATA, bytes(5, 3)));
        assertThat(events.closed).as("a frame into the slot just released").isEmpty();
        assertThat(ring.outstanding()).isEqualTo(SLOTS);

        channel.writeInbound(frame(FrameType.DATA, bytes(5, 4)));
        assertThat(failure()).hasMessageContaining("sender exceeded its credits");
        assertThat(ring.outstanding()).as("only the delivered frames hold slots").isEqualTo(SLOTS);
    }

    @Test
    void aConnectionLostInsideADataFrameGivesItsSlotBack() {
        decoder.acceptData();
        ByteBuf frame = frame(FrameType.DATA, bytes(40, 1));
        channel.writeInbound(frame.readRetainedSlice(ProtocolVersion.HEADER_BYTES + 20));
        frame.release();
        assertThat(ring.outstanding()).as("the slot the partial frame is read into").isEqualTo(1);
        channel.close();
        assertThat(ring.outstanding()).isZero();
        assertThat(events.closed).containsExactly("closed");
    }

    @Test
    void theAllocatorHandsOutTheHeaderThenTheSlotItselfSoDataIsNeverCopied() {
        decoder.acceptData();
        RecvByteBufAllocator.Handle handle = new SlotReadAllocator(decoder).newHandle();
        handle.reset(channel.config());

        ByteBuf headerRead = handle.allocate(ByteBufAllocator.DEFAULT);
        assertThat(headerRead.writableBytes()).as("a read of the header alone").isEqualTo(ProtocolVersion.HEADER_BYTES);
        headerRead.writeBytes(header(FrameType.DATA, 30));
        channel.writeInbound(headerRead);

        assertThat(handle.guess()).as("the next read: the rest of the frame").isEqualTo(30);
        ByteBuf payloadRead = handle.allocate(ByteBufAllocator.DEFAULT);
        assertThat(payloadRead.writableBytes()).isEqualTo(30);
        payloadRead.writeBytes(bytes(30, 9));
        ByteBuffer readInto = payloadRead.nioBuffer(0, 30);
        channel.writeInbound(payloadRead);

        assertThat(events.types).containsExactly(FrameType.DATA);
        Chunk data = events.data.get(0);
        assertThat(data.buffer()).isEqualTo(ByteBuffer.wrap(bytes(30, 9)));
        data.buffer().put(0, (byte) 42);
        assertThat(readInto.get(0)).as("the socket read went into the slot itself").isEqualTo((byte) 42);
    }

    @Test
    void aControlPayloadIsReadThroughABufferOfExactlyItsSize() {
        RecvByteBufAllocator.Handle handle = new SlotReadAllocator(decoder).newHandle();
        channel.writeInbound(header(FrameType.HELLO, 50));
        ByteBuf read = handle.allocate(ByteBufAllocator.DEFAULT);
        assertThat(read.writableBytes()).isEqualTo(50);
        read.writeBytes(bytes(50, 5));
        channel.writeInbound(read);
        assertThat(events.types).containsExactly(FrameType.HELLO);
        assertThat(events.control.get(0)).isEqualTo(ByteBuffer.wrap(bytes(50, 5)));
    }

    @Test
    void readingGoesOnWhileReadsFillTheirRegionAndStopsAtAShortReadOrAfterSixteen() {
        RecvByteBufAllocator.ExtendedHandle handle = (RecvByteBufAllocator.ExtendedHandle) new SlotReadAllocator(decoder).newHandle();
        handle.reset(channel.config());
        handle.attemptedBytesRead(8);
        handle.lastBytesRead(8);
        handle.incMessagesRead(1);
        assertThat(handle.continueReading()).as("a read that filled its region").isTrue();
        handle.lastBytesRead(5);
        assertThat(handle.continueReading()).as("a short read").isFalse();
        handle.lastBytesRead(0);
        assertThat(handle.continueReading()).as("nothing read").isFalse();

        handle.reset(channel.config());
        handle.lastBytesRead(8);
        for (int i = 0; i < 15; i++) {
            handle.incMessagesRead(1);
            assertThat(handle.continueReading()).as("after %d reads", i + 1).isTrue();
        }
        handle.incMessagesRead(1);
        assertThat(handle.continueReading()).as("after 16 reads").isFalse();
    }

    private RdmaFluxException failure() {
        assertThat(events.closed).hasSize(1);
        assertThat(events.failures).hasSize(1);
        return events.failures.get(0);
    }

    private static ByteBuf header(FrameType type, int length) {
        return Unpooled.buffer(ProtocolVersion.HEADER_BYTES).writeByte(type.code()).writeByte(0).writeShort(0).writeInt(length);
    }

    private static ByteBuf frame(FrameType type, byte[] payload) {
        return Unpooled.wrappedBuffer(header(type, payload.length), Unpooled.wrappedBuffer(payload));
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    /** What the decoder told the engine, in order. */
    private static final class Recorder implements FrameHandler {
        final List<FrameType> types = new ArrayList<>();
        final List<ByteBuffer> control = new ArrayList<>();
        final List<Chunk> data = new ArrayList<>();
        final List<String> closed = new ArrayList<>();
        final List<RdmaFluxException> failures = new ArrayList<>();

        @Override
        public void onControlFrame(FrameType type, ByteBuffer payload) {
            types.add(type);
            control.add(payload);
        }

        @Override
        public void onDataFrame(Chunk payload) {
            types.add(FrameType.DATA);
            data.add(payload);
        }

        @Override
        public void onSendSlotFree() {
        }

        @Override
        public void onClosed(Throwable cause) {
            closed.add(cause == null ? "closed" : "failed");
            if (cause instanceof RdmaFluxException p) {
                failures.add(p);
            }
        }
    }
}
