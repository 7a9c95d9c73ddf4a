package io.rdmaflux.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Lets the kernel read straight into the receive ring. Instead of a fresh buffer per read,
 * Netty gets from the decoder exactly the region where the next bytes belong: the rest of a
 * frame header, or the unfilled part of the frame's own receive slot (control payloads, which
 * are small, go through a pooled buffer sized to what is left of them). A read therefore never
 * crosses a frame boundary and data payloads are never copied after the socket read, as on
 * RDMA, where the network card writes into posted receive buffers.
 */
final class SlotReadAllocator implements RecvByteBufAllocator {

    /** Reads per event-loop wake-up before other channels get a turn. */
    private static final int MAX_READS = 16;

    private final FrameDecoder decoder;

    SlotReadAllocator(FrameDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    public Handle newHandle() {
        return new ReadHandle();
    }

    private final class ReadHandle implements ExtendedHandle {
        private ChannelConfig config;
        private int reads;
        private int attempted;
        private int last;

        private final UncheckedBooleanSupplier filled = () -> attempted == last;

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return decoder.nextReadBuffer(alloc);
        }

        @Override
        public int guess() {
            return decoder.nextReadSize();
        }

        @Override
        public void reset(ChannelConfig config) {
            this.config = config;
            reads = 0;
        }

        @Override
        public void incMessagesRead(int n) {
            reads += n;
        }

        @Override
        public void lastBytesRead(int bytes) {
            last = bytes;
        }

        @Override
        public int lastBytesRead() {
            return last;
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            attempted = bytes;
        }

        @Override
        public int attemptedBytesRead() {
            return attempted;
        }

        @Override
        public boolean continueReading() {
            return continueReading(filled);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreData) {
            // A read that filled its region may have left more in the socket; one that did not
            // has drained it for now.
            return config.isAutoRead() && reads < MAX_READS && last > 0 && maybeMoreData.get();
        }

        @Override
        public void readComplete() {
        }
    }
}
