package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.TransportOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One RDMA connection as the engine sees it: an RC queue pair whose memory is laid out by
 * {@link SlotLayout} and held by {@link RdmaResources}, a {@link SendQueue} that keeps frames in
 * order, a {@link Poster} thread that posts them and a {@link CompletionLoop} thread that makes
 * every handler call. This class decides what each completion and event means and how the
 * connection ends.
 *
 * <ul>
 *   <li>Roles: a connection this side opened (a client, with its own event channel) sends the
 *       stream and takes only control frames; one it accepted receives the stream. This is how
 *       the engine uses them, and it lets each side register only what its role needs.</li>
 *   <li>Receives before data: small control receives ({@link SlotLayout#SMALL} bytes). A
 *       connecting side keeps {@link SlotLayout#CONNECTING_CONTROL_RECEIVES} of them posted for
 *       good. An accepting side posts two, for the peer's HELLO and AUTH, and posts one again
 *       only after a PING, so that none is left when the ring goes up: a stranger that never
 *       authenticates costs two small receives, not a ring.</li>
 *   <li>The ring ({@link #acceptData()}, accepting side): a SEND consumes whichever receive is
 *       first in the queue, data or control alike, so the ring is one pool: the engine's credits
 *       cover {@code receiveSlots} data frames, and {@link SlotLayout#RING_CONTROL} more keep
 *       room for control frames, which are reposted as soon as the engine's
 *       {@code onControlFrame} returns. A data frame's slot is reposted when the engine
 *       releases its lease, on the releasing thread.</li>
 *   <li>Sends: a data chunk is copied into a send slot and released at once;
 *       {@link FrameHandler#onSendSlotFree()} follows the send's completion. Each frame is one
 *       SEND_WITH_IMM carrying the frame type in its immediate value.</li>
 *   <li>Ending, on complete, error and cancel alike: the I/O thread waits (at most
 *       {@link #CLOSE_FLUSH_NANOS}) for queued sends, then disconnects and releases everything;
 *       {@link #onClose()} completes after that.</li>
 * </ul>
 */
final class RdmaConnection implements FrameConnection, CompletionLoop.Target {

    private static final Logger log = Loggers.getLogger(RdmaConnection.class);

    /** How long close() waits for queued frames to leave before tearing down anyway. */
    static final long CLOSE_FLUSH_NANOS = TimeUnit.SECONDS.toNanos(3);
    /**
     * Longest wait of the I/O thread. Everything that changes the connection's state wakes it,
     * so this only bounds the damage of a wake-up that was missed.
     */
    static final int EVENT_WAIT_MS = 100;

    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final RdmaCmId id;
    private final RdmaEventChannel ownChannel;
    private final TransportOptions options;
    private final String peer;
    private final SlotLayout layout;
    private final RdmaResources resources;
    private final SendQueue sendQueue;
    private final Waker waker;

    private volatile FrameHandler handler;
    private volatile boolean established;
    private volatile boolean peerGone;
    private volatile boolean closeRequested;
    private volatile long closeDeadline;
    private volatile RdmaFluxException failure;
    private final AtomicBoolean reported = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean tornDown = new AtomicBoolean();
    private volatile Runnable onTornDown;
    /** Emitted once teardown is complete: queued frames sent (or abandoned), nothing registered. */
    private final Sinks.Empty<Void> closedSignal = Sinks.empty();

    /**
     * Builds the verbs resources on an id whose route is resolved (client, the sending side;
     * {@code ownChannel} is its event channel) or that arrived in a connect request (server, the
     * receiving side; null), and posts its control receives. On failure releases what it made
     * (not the id or channel, which stay the caller's) and throws.
     */
    RdmaConnection(RdmaCmId id, RdmaEventChannel ownChannel, TransportOptions options, String peer)
            throws IOException {
        this.id = id;
        this.ownChannel = ownChannel;
        this.options = options;
        this.peer = peer;
        this.layout = ownChannel == null ? SlotLayout.accepting(options) : SlotLayout.connecting(options);
        this.waker = new Waker();
        try {
            this.resources = RdmaResources.open(id, layout, peer);
        } catch (IOException | RuntimeException e) {
            waker.close();
            throw e;
        }
        this.sendQueue = new SendQueue(layout.sendCount(), SlotLayout.CONTROL_SENDS);
        RdmaTransport.connectionOpened(this);
    }

    static RdmaConnParam connParam() throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count(RdmaTransport.RETRY_COUNT);
        p.setRnr_retry_count(RdmaTransport.RNR_RETRY_COUNT);
        return p;
    }

    /** The connection manager reported ESTABLISHED: teardown must disconnect. */
    void established() {
        established = true;
    }

    /** Called by the listener when it has to be told when teardown is complete. */
    void onTornDown(Runnable r) {
        this.onTornDown = r;
    }

    /** The peer disconnected (server side: reported by the listener's CM thread). */
    void peerDisconnected() {
        peerGone = true;
        waker.wake();
    }

    // ------------------------------------------------------------------ FrameConnection

    @Override
    public void start(FrameHandler handler) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("connection already started");
        }
        this.handler = handler;
        int n = THREAD_IDS.incrementAndGet();
        CompletionLoop loop = new CompletionLoop(resources, ownChannel, waker, this, describe());
        startThread(loop, "rdma-flux-io-" + n);
        startThread(new Poster(sendQueue, resources, e -> fail(new RdmaFluxException(ErrorCode.TRUNCATED,
                "RDMA send on QP " + resources.qpNum() + " failed: " + e.getMessage(), e))), "rdma-flux-post-" + n);
    }

    private static void startThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    /**
     * Registers and posts the data ring before returning, so that it is ready for the frames
     * the peer sends once it has our AUTH (queued after this call). The peer's HELLO and AUTH
     * have taken both control receives by now (the engine calls this while handling that AUTH),
     * so the ring's receives are the next in the queue.
     *
     * @throws RdmaFluxException when the ring cannot be registered (the locked-memory limit,
     *         say); the engine answers ERROR with the reason and closes
     */
    @Override
    public void acceptData() {
        if (!layout.accepting()) {
            throw new RdmaFluxException(ErrorCode.INTERNAL, "RDMA takes data only on connections it accepted, "
                    + "not on " + describe());
        }
        try {
            resources.openRing();
        } catch (IOException | RuntimeException e) {
            throw new RdmaFluxException(ErrorCode.INTERNAL, "the receiver cannot register its RDMA ring of "
                    + layout.ringCount() + " x " + layout.stride() + " bytes: " + e.getMessage(), e);
        }
    }

    @Override
    public void sendControl(FrameType type, ByteBuffer payload) {
        int n = payload.remaining();
        if (n > layout.controlSize()) {
            fail(new RdmaFluxException(ErrorCode.PROTOCOL, "control frame " + type + " of " + n
                    + " bytes exceeds the RDMA control slot of " + layout.controlSize() + " bytes"));
            return;
        }
        if (closeRequestedOrDead()) {
            return;
        }
        byte[] copy = new byte[n];
        payload.duplicate().get(copy);
        sendQueue.putControl(type, copy);
    }

    @Override
    public void sendData(Chunk payload) {
        try {
            int n = payload.remaining();
            if (n > options.frameSize()) {
                fail(new RdmaFluxException(ErrorCode.PROTOCOL, "data frame of " + n + " bytes exceeds the frame size "
                        + options.frameSize()));
                return;
            }
            if (closeRequestedOrDead()) {
                return;
            }
            if (layout.sendCount() == 0) {
                fail(new RdmaFluxException(ErrorCode.INTERNAL, "RDMA sends data only on connections it opened, not on "
                        + describe()));
                return;
            }
            int slot = sendQueue.reserveData();
            if (slot < 0) {
                fail(new RdmaFluxException(ErrorCode.PROTOCOL, "no free RDMA send slot: more than "
                        + options.sendSlots() + " data frames in flight"));
                return;
            }
            resources.dataSlot(slot).put(payload.buffer().duplicate());
            sendQueue.putData(slot, n);
        } finally {
            payload.releaseQuietly();
        }
    }

    private boolean closeRequestedOrDead() {
        return failure != null || peerGone || tornDown.get();
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
        return "rdma";
    }

    @Override
    public String describe() {
        return "rdma " + peer + " (QP " + resources.qpNum() + ")";
    }

    @Override
    public Mono<Void> onClose() {
        return closedSignal.asMono();
    }

    @Override
    public void close() {
        if (closeRequested) {
            return;
        }
        closeDeadline = System.nanoTime() + CLOSE_FLUSH_NANOS;
        closeRequested = true;
        if (started.compareAndSet(false, true)) {
            // Never started: nobody polls; tear down on a thread of our own.
            startThread(this::teardown, "rdma-flux-close-" + THREAD_IDS.incrementAndGet());
        } else {
            waker.wake();
        }
    }

    /** Releases everything after a failed set-up (before any thread was started). */
    void abortSetup() {
        started.set(true);
        teardown();
    }

    private void fail(RdmaFluxException e) {
        if (failure == null) {
            failure = e;
        }
        waker.wake();
    }

    // ------------------------------------------------------------------ I/O thread (CompletionLoop.Target)

    @Override
    public boolean failed() {
        return failure != null;
    }

    @Override
    public boolean done() {
        return failure != null || peerGone
                || closeRequested && (sendQueue.idle() || System.nanoTime() > closeDeadline);
    }

    @Override
    public int waitMillis() {
        if (!closeRequested) {
            return EVENT_WAIT_MS;
        }
        long left = (closeDeadline - System.nanoTime()) / 1_000_000;
        return (int) Math.max(1, Math.min(EVENT_WAIT_MS, left));
    }

    @Override
    public void onCmEvent(int type) {
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            peerGone = true;
        }
    }

    @Override
    public void onCompletion(IbvWC wc) {
        long wrId = wc.getWr_id();
        long kind = RdmaResources.kindOf(wrId);
        int slot = RdmaResources.slotOf(wrId);
        int status = wc.getStatus();
        if (status != IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()) {
            if (!RdmaResources.isReceive(kind)) {
                sendQueue.sendFailed();
            }
            boolean flushed = status == IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal();
            if (!(flushed && (closeRequested || peerGone))) {
                fail(errorCompletion(status, kind));
            }
        } else if (kind == RdmaResources.KIND_RECV) {
            received(slot, wc.getByte_len(), wc.getImm_data());
        } else if (kind == RdmaResources.KIND_SMALL_RECV) {
            receivedSmall(slot, wc.getByte_len(), wc.getImm_data());
        } else if (kind == RdmaResources.KIND_DATA) {
            sendQueue.dataSent(slot);
            if (!closeRequested) {
                handler.onSendSlotFree();
            }
        } else {
            sendQueue.controlSent(slot);
        }
    }

    private void received(int slot, int length, int imm) {
        if (closeRequested) {
            repost(RdmaResources.KIND_RECV, slot);
            return;
        }
        if (imm == FrameType.DATA.code()) {
            handler.onDataFrame(Chunk.of(resources.receiveSlot(slot, length),
                    () -> repost(RdmaResources.KIND_RECV, slot)));
            return;
        }
        try {
            FrameType type = controlType(imm);
            if (type != null) {
                handler.onControlFrame(type, resources.receiveSlot(slot, length).asReadOnlyBuffer());
            }
        } finally {
            repost(RdmaResources.KIND_RECV, slot);
        }
    }

    /** A frame in a control receive: never data; posted again as the side's rule says. */
    private void receivedSmall(int slot, int length, int imm) {
        FrameType type = null;
        try {
            if (closeRequested) {
                return;
            }
            if (imm == FrameType.DATA.code()) {
                fail(new RdmaFluxException(ErrorCode.PROTOCOL, "DATA frame from " + peer + " before it authenticated"));
                return;
            }
            type = controlType(imm);
            if (type != null) {
                handler.onControlFrame(type, resources.smallSlot(slot, length).asReadOnlyBuffer());
            }
        } finally {
            // Accepting side: a PING takes the place of HELLO or AUTH, so its receive goes back;
            // HELLO and AUTH do not (see the class comment), nor anything once the ring is up.
            if (!layout.accepting() || type == FrameType.PING && !resources.ringOpen()) {
                repost(RdmaResources.KIND_SMALL_RECV, slot);
            }
        }
    }

    /** The control frame type in an immediate value; null, with the connection failed, for one we do not know. */
    private FrameType controlType(int imm) {
        try {
            return FrameType.of(imm);
        } catch (RdmaFluxException e) {
            fail(new RdmaFluxException(ErrorCode.PROTOCOL, "RDMA frame with unknown type " + imm + " from " + peer));
            return null;
        }
    }

    private void repost(long kind, int slot) {
        if (peerGone) {
            return;
        }
        try {
            resources.postReceive(kind, slot);
        } catch (IOException e) {
            fail(new RdmaFluxException(ErrorCode.TRUNCATED, "RDMA receive repost on QP " + resources.qpNum()
                    + " failed: " + e.getMessage(), e));
        }
    }

    private RdmaFluxException errorCompletion(int status, long kind) {
        String name = status >= 0 && status < IbvWC.IbvWcStatus.values().length
                ? IbvWC.IbvWcStatus.values()[status].name() : "status " + status;
        String what = RdmaResources.isReceive(kind) ? "receive" : "send";
        String hint = switch (name) {
            case "IBV_WC_RETRY_EXC_ERR" -> ": the peer stopped acknowledging (gone or unreachable)";
            case "IBV_WC_RNR_RETRY_EXC_ERR" -> ": the peer had no receive posted";
            case "IBV_WC_WR_FLUSH_ERR" -> ": the queue pair was flushed (connection torn down)";
            // Soft-RoCE reports a frame too large for its receive as a local QP operation error.
            case "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR" -> kind == RdmaResources.KIND_SMALL_RECV
                    ? ": probably a frame larger than the " + SlotLayout.SMALL + "-byte receives a side holds before"
                            + " its peer authenticated"
                    : name.equals("IBV_WC_LOC_LEN_ERR") ? ": a frame was larger than the receive slot" : "";
            case "IBV_WC_REM_OP_ERR" -> ": the peer could not take the frame (its queue pair failed or is gone)";
            case "IBV_WC_REM_INV_REQ_ERR" -> ": the peer rejected the request as invalid";
            default -> "";
        };
        return new RdmaFluxException(ErrorCode.TRUNCATED, "RDMA " + what + " completion error on QP "
                + resources.qpNum() + " (" + peer + "): " + name + " (" + status + ")" + hint);
    }

    @Override
    public void ended(Throwable error) {
        if (error != null) {
            report(RdmaFluxException.wrap(error, ErrorCode.INTERNAL));
        } else if (failure != null || peerGone) {
            report(failure);
        }
        teardown();
        report(null);
    }

    private void report(Throwable cause) {
        if (reported.compareAndSet(false, true)) {
            FrameHandler h = handler;
            if (h != null) {
                try {
                    h.onClosed(cause);
                } catch (RuntimeException e) {
                    log.warn("onClosed handler failed", e);
                }
            }
        }
    }

    // ------------------------------------------------------------------ teardown

    /**
     * Disconnects and releases everything, once: verbs resources, the CM id and a client's own
     * event channel. Runs on the I/O thread (or, for a connection never started, the closing
     * thread), after which nothing waits on the {@link Waker} any more.
     */
    private void teardown() {
        if (!tornDown.compareAndSet(false, true)) {
            return;
        }
        try {
            resources.stopPosting();
            sendQueue.stop();
            if (established) {
                resources.quietly("disconnect", id::disconnect);
            }
            resources.release();
            resources.quietly("destroy CM id", id::destroyId);
            if (ownChannel != null) {
                resources.quietly("destroy event channel", ownChannel::destroyEventChannel);
            }
            waker.close();
            RdmaTransport.connectionReleased(this);
            Runnable r = onTornDown;
            if (r != null) {
                r.run();
            }
        } finally {
            closedSignal.tryEmitEmpty();
        }
    }
}
