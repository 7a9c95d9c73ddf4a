package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The native wait the RDMA threads use, on the host: it needs libdisni but no RDMA device (it
 * polls ordinary descriptors), so it runs wherever the library was built.
 */
class WakerTest {

    private Pipe pipe;
    private Pipe other;

    @BeforeEach
    void loadLibrary() throws Exception {
        RdmaNative.unavailableReason();
        assumeTrue(RdmaNative.loadedFrom() != null, "libdisni not built or not loadable here");
        pipe = Pipe.open();
        other = Pipe.open();
    }

    @AfterEach
    void closePipes() throws Exception {
        for (Pipe p : new Pipe[] {pipe, other}) {
            if (p != null) {
                p.source().close();
                p.sink().close();
            }
        }
    }

    /** The read end's file descriptor (sun.nio.ch is exported to the tests, as DiSNI needs it). */
    private static int fd(Pipe p) throws Exception {
        return (int) Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal").invoke(p.source());
    }

    @Test
    void wakeEndsAWaitThatWouldOtherwiseLastAMinute() throws Exception {
        try (Waker w = new Waker()) {
            AtomicInteger result = new AtomicInteger(-1);
            int fd = fd(pipe);
            Thread waiter = new Thread(() -> {
                try {
                    result.set(w.await(fd, -1, 60_000));
                } catch (java.io.IOException e) {
                    result.set(-2);
                }
            });
            waiter.start();
            w.wake();
            waiter.join(30_000);
            assertThat(waiter.isAlive()).isFalse();
            assertThat(result.get()).isEqualTo(Waker.WOKEN);
        }
    }

    @Test
    void readableDescriptorsAreReportedByPosition() throws Exception {
        try (Waker w = new Waker()) {
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            assertThat(w.await(fd(pipe), fd(other), 60_000)).isEqualTo(Waker.READY_FIRST);
            assertThat(w.await(fd(other), fd(pipe), 60_000)).isEqualTo(Waker.READY_SECOND);
        }
    }

    @Test
    void aWakeUpIsConsumedByTheWaitThatSeesIt() throws Exception {
        try (Waker w = new Waker()) {
            w.wake();
            w.wake();
            assertThat(w.await(fd(pipe), -1, 60_000)).isEqualTo(Waker.WOKEN);
            assertThat(w.await(fd(pipe), -1, 1)).as("nothing pending: the wait times out").isZero();
        }
    }

    @Test
    void wakeAfterCloseDoesNothing() throws Exception {
        Waker w = new Waker();
        w.close();
        w.wake();
        w.close();
        assertThat(w.await(fd(pipe), -1, 60_000)).isEqualTo(Waker.WOKEN);
    }
}
