package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.rdmaflux.protocol.FrameType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The RDMA send queue's ordering and slot accounting, on the host (no RDMA needed). */
class SendQueueTest {

    private static byte[] bytes(int n) {
        return new byte[n];
    }

    /** Takes every frame that can go now. */
    private static List<SendQueue.Frame> drain(SendQueue q) {
        List<SendQueue.Frame> out = new ArrayList<>();
        SendQueue.Frame f;
        while ((f = q.poll()) != null) {
            out.add(f);
        }
        return out;
    }

    @Test
    void controlAndDataFramesLeaveInTheOrderGiven() {
        SendQueue q = new SendQueue(4, 4);
        q.putControl(FrameType.HELLO, bytes(10));
        int a = q.reserveData();
        q.putData(a, 100);
        q.putControl(FrameType.CREDIT, bytes(4));
        int b = q.reserveData();
        q.putData(b, 200);
        q.putControl(FrameType.END, bytes(20));

        assertThat(drain(q)).extracting(SendQueue.Frame::type, SendQueue.Frame::length).containsExactly(
                tuple(FrameType.HELLO, 10),
                tuple(FrameType.DATA, 100),
                tuple(FrameType.CREDIT, 4),
                tuple(FrameType.DATA, 200),
                tuple(FrameType.END, 20));
    }

    @Test
    void aControlFrameWithoutAFreeSlotHoldsBackEverythingAfterIt() {
        SendQueue q = new SendQueue(4, 2);
        q.putControl(FrameType.PING, bytes(0));
        q.putControl(FrameType.PING, bytes(0));
        List<SendQueue.Frame> first = drain(q);
        assertThat(first).extracting(SendQueue.Frame::slot).containsExactlyInAnyOrder(0, 1);

        // Both control slots are in flight: the next control frame waits, and data behind it too.
        q.putControl(FrameType.CREDIT, bytes(4));
        int d = q.reserveData();
        q.putData(d, 1000);
        assertThat(q.poll()).isNull();

        q.controlSent(first.get(1).slot());
        SendQueue.Frame credit = q.poll();
        assertThat(credit.type()).isEqualTo(FrameType.CREDIT);
        assertThat(credit.slot()).isEqualTo(first.get(1).slot());
        SendQueue.Frame data = q.poll();
        assertThat(data.type()).isEqualTo(FrameType.DATA);
        assertThat(data.slot()).isEqualTo(d);
        assertThat(q.poll()).isNull();
    }

    @Test
    void dataSlotsAreHandedOutOnceAndComeBackOnCompletion() {
        SendQueue q = new SendQueue(3, 1);
        int a = q.reserveData();
        int b = q.reserveData();
        int c = q.reserveData();
        assertThat(List.of(a, b, c)).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(q.reserveData()).as("all slots in use").isEqualTo(-1);

        q.putData(b, 5);
        assertThat(q.poll().slot()).isEqualTo(b);
        q.dataSent(b);
        assertThat(q.reserveData()).isEqualTo(b);
    }

    @Test
    void idleOnlyWhenNothingWaitsAndEverySendCompleted() {
        SendQueue q = new SendQueue(2, 2);
        assertThat(q.idle()).isTrue();
        int a = q.reserveData();
        q.putData(a, 1);
        q.putControl(FrameType.END, bytes(8));
        assertThat(q.idle()).as("frames waiting").isFalse();

        SendQueue.Frame data = q.poll();
        SendQueue.Frame end = q.poll();
        assertThat(q.idle()).as("two sends outstanding").isFalse();
        q.dataSent(data.slot());
        assertThat(q.idle()).as("one send outstanding").isFalse();
        q.controlSent(end.slot());
        assertThat(q.idle()).isTrue();

        q.putControl(FrameType.PING, bytes(0));
        q.poll();
        q.sendFailed();
        assertThat(q.idle()).as("a failed send counts as completed").isTrue();
    }

    @Test
    void framesQueuedBeforeACloseStillLeaveUntilStopped() {
        SendQueue q = new SendQueue(2, 1);
        q.putControl(FrameType.END_ACK, bytes(0));
        int a = q.reserveData();
        q.putData(a, 7);
        // Closing the connection does not touch the queue: what was given is still posted in order.
        assertThat(q.poll().type()).isEqualTo(FrameType.END_ACK);
        assertThat(q.poll().type()).isEqualTo(FrameType.DATA);
    }

    @Test
    void stopDropsWaitingFramesIgnoresLaterOnesAndReleasesATakingThread() throws Exception {
        SendQueue q = new SendQueue(2, 1);
        q.putControl(FrameType.PING, bytes(0));
        SendQueue.Frame inFlight = q.poll();
        q.putControl(FrameType.END, bytes(8));  // waits: the only control slot is in flight
        int d = q.reserveData();
        q.putData(d, 3);

        AtomicReference<Object> taken = new AtomicReference<>("nothing yet");
        Thread poster = new Thread(() -> {
            try {
                taken.set(q.take());
            } catch (InterruptedException e) {
                taken.set(e);
            }
        });
        poster.start();
        q.stop();
        poster.join(30_000);
        assertThat(poster.isAlive()).as("take() returned after stop()").isFalse();
        assertThat(taken.get()).isNull();

        q.controlSent(inFlight.slot());
        assertThat(q.poll()).as("waiting frames were dropped").isNull();
        q.putControl(FrameType.PING, bytes(0));
        assertThat(q.poll()).as("frames after stop are ignored").isNull();
        assertThat(q.idle()).isTrue();
    }

    @Test
    void takeWaitsForTheHeadToBecomeReady() throws Exception {
        SendQueue q = new SendQueue(1, 1);
        q.putControl(FrameType.PING, bytes(0));
        SendQueue.Frame first = q.take();
        q.putControl(FrameType.CREDIT, bytes(4));

        AtomicReference<SendQueue.Frame> taken = new AtomicReference<>();
        Thread poster = new Thread(() -> {
            try {
                taken.set(q.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        poster.start();
        q.controlSent(first.slot());
        poster.join(30_000);
        assertThat(poster.isAlive()).isFalse();
        assertThat(taken.get().type()).isEqualTo(FrameType.CREDIT);
        assertThat(taken.get().slot()).isEqualTo(first.slot());
    }
}
