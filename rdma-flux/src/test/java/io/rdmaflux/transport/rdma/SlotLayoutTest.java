package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What each side of an RDMA connection registers, from the options (no device needed). */
class SlotLayoutTest {

    private static final int MIB = 1 << 20;
    private static final int KIB = 1 << 10;

    private static TransportOptions options(int frameSize, int receiveSlots, int sendSlots) {
        return new TransportOptions(frameSize, receiveSlots, sendSlots, Duration.ofSeconds(5));
    }

    @Test
    void receiverHoldsOnlySmallReceivesUntilThePeerAuthenticates() {
        for (int frame : new int[] {4 * KIB, MIB, 64 * MIB}) {
            SlotLayout accepting = SlotLayout.accepting(options(frame, 16, 16));
            // Two 4 KiB receives (HELLO, AUTH) and 16 control send slots of 4 KiB, whatever the frame size.
            assertThat(accepting.setupBytes()).isEqualTo(72 * KIB);
            assertThat(accepting.controlReceives()).isEqualTo(2);
            assertThat(accepting.sendCount()).isZero();
        }
    }

    @Test
    void receiverRingIsItsCreditsPlusRoomForControlFrames() {
        SlotLayout accepting = SlotLayout.accepting(options(MIB, 16, 16));
        assertThat(accepting.ringCount()).isEqualTo(16 + SlotLayout.RING_CONTROL);
        assertThat(accepting.registeredBytes()).isEqualTo(20L * MIB + 72 * KIB);
        assertThat(accepting.receiveDepth()).isEqualTo(16 + SlotLayout.RING_CONTROL + 2);
        assertThat(RdmaTransport.registeredBytesReceiving(options(MIB, 16, 16))).isEqualTo(accepting.registeredBytes());
        assertThat(RdmaTransport.registeredBytesUnauthenticated(options(MIB, 16, 16))).isEqualTo(72 * KIB);
    }

    @Test
    void senderRegistersNoRing() {
        SlotLayout connecting = SlotLayout.connecting(options(MIB, 16, 16));
        assertThat(connecting.ringCount()).isZero();
        // 16 data send slots, 16 control send slots of 64 KiB (METADATA), 16 control receives of 4 KiB.
        assertThat(connecting.registeredBytes()).isEqualTo(16L * MIB + MIB + 64 * KIB);
        assertThat(RdmaTransport.registeredBytesSending(options(MIB, 16, 16))).isEqualTo(connecting.registeredBytes());
    }

    @Test
    void slotsAreWholePagesAndControlSlotsNeverExceedTheFrame() {
        SlotLayout odd = SlotLayout.connecting(options(5000, 2, 3));
        assertThat(odd.stride()).isEqualTo(8192);
        assertThat(odd.controlSize()).isEqualTo(8192);
        assertThat(odd.sendBytes()).isEqualTo(3 * 8192);
    }

    @Test
    void aRegionJavaCannotAllocateIsRefusedWithTheReason() {
        SlotLayout huge = SlotLayout.accepting(options(64 * MIB, 64, 1));
        assertThatThrownBy(huge::requireAllocatable).isInstanceOf(RdmaFluxException.class)
                .hasMessageContaining("lower the frame size or the number of slots");
    }
}
