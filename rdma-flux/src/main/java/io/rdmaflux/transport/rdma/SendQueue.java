package io.rdmaflux.transport.rdma;

import io.rdmaflux.protocol.FrameType;
import java.util.ArrayDeque;

/**
 * The send side of one connection, in plain Java: which data and control send slots are free,
 * the frames waiting to be posted in the order they were given, and how many posted sends have
 * not completed yet. Thread-safe.
 *
 * <p>A data frame brings its slot, reserved with {@link #reserveData()} before its bytes were
 * copied in (the engine never has more data frames in flight than there are slots). A control
 * frame gets a control slot when it reaches the head of the queue; one that finds none free
 * holds back every frame queued after it, data included, so frames leave in order.
 *
 * <p>The poster thread takes frames with {@link #take()}; the completion thread gives slots back
 * with {@link #dataSent}, {@link #controlSent} and {@link #sendFailed}.
 */
final class SendQueue {

    /**
     * A frame to post. {@code slot} indexes the data send slots for {@link FrameType#DATA}, the
     * control send slots otherwise; {@code payload} is the control frame's bytes (null for data,
     * whose bytes are already in the slot), {@code length} the bytes to send.
     */
    record Frame(FrameType type, int slot, int length, byte[] payload) {

        boolean isData() {
            return type == FrameType.DATA;
        }
    }

    private final ArrayDeque<Integer> freeData = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeControl = new ArrayDeque<>();
    /** Frames not yet taken, in order; control frames carry slot -1 until taken. */
    private final ArrayDeque<Frame> waiting = new ArrayDeque<>();
    private int outstanding;
    private boolean stopped;

    SendQueue(int dataSlots, int controlSlots) {
        for (int i = 0; i < dataSlots; i++) {
            freeData.add(i);
        }
        for (int i = 0; i < controlSlots; i++) {
            freeControl.add(i);
        }
    }

    /** A free data slot for the caller to fill and then {@link #putData}, or -1 when none is free. */
    synchronized int reserveData() {
        Integer slot = freeData.poll();
        return slot == null ? -1 : slot;
    }

    /** Queues a data frame of {@code length} bytes in the reserved {@code slot}. */
    synchronized void putData(int slot, int length) {
        put(new Frame(FrameType.DATA, slot, length, null));
    }

    /** Queues a control frame; {@code payload} becomes the queue's. */
    synchronized void putControl(FrameType type, byte[] payload) {
        put(new Frame(type, -1, payload.length, payload));
    }

    private void put(Frame f) {
        if (stopped) {
            return;
        }
        waiting.add(f);
        if (waiting.size() == 1) {
            notifyAll();
        }
    }

    /**
     * The next frame to post, in order, waiting while there is none ({@link #poll()}); counted
     * as outstanding until its completion.
     *
     * @return the frame, or null once {@link #stop()} was called
     */
    synchronized Frame take() throws InterruptedException {
        while (!stopped) {
            Frame f = poll();
            if (f != null) {
                return f;
            }
            wait();
        }
        return null;
    }

    /**
     * The next frame to post if it can go now, else null: the queue is empty, or its head is a
     * control frame and no control slot is free. Counted as outstanding until its completion.
     */
    synchronized Frame poll() {
        Frame head = waiting.peek();
        if (stopped || head == null || !head.isData() && freeControl.isEmpty()) {
            return null;
        }
        waiting.poll();
        outstanding++;
        return head.isData() ? head : new Frame(head.type(), freeControl.poll(), head.length(), head.payload());
    }

    /** A data send completed: its slot is free again. */
    synchronized void dataSent(int slot) {
        outstanding--;
        freeData.add(slot);
    }

    /** A control send completed: its slot is free again, which may release a waiting head. */
    synchronized void controlSent(int slot) {
        outstanding--;
        freeControl.add(slot);
        if (!waiting.isEmpty()) {
            notifyAll();
        }
    }

    /** A send completed in error; its slot is not reused (the connection is ending). */
    synchronized void sendFailed() {
        outstanding--;
    }

    /** Whether every frame given has been posted and has completed. */
    synchronized boolean idle() {
        return outstanding == 0 && waiting.isEmpty();
    }

    /** Ends {@link #take()} for good; frames still waiting are dropped, later ones ignored. */
    synchronized void stop() {
        stopped = true;
        waiting.clear();
        notifyAll();
    }
}
