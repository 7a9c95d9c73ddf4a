package io.rdmaflux.transport.rdma;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.TransportOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One RDMA connection: an RC queue pair with its own protection domain, completion queue and
 * completion channel, and three registered regions allocated once:
 * <ul>
 *   <li>the receive ring: {@code receiveSlots + CONTROL_RECEIVES} slots of {@code frameSize}
 *       bytes (rounded to pages), each with a posted receive. A SEND consumes whichever receive
 *       is first in the queue, data or control alike, so the ring is one pool: the engine's
 *       credits cover {@code receiveSlots} data frames, and the extra receives keep room for
 *       control frames, which are reposted as soon as the engine's {@code onControlFrame}
 *       returns. A data frame's slot is reposted when the engine releases its lease;</li>
 *   <li>the data send slots: {@code sendSlots} buffers; a data chunk is copied into one and
 *       released at once, and {@link FrameHandler#onSendSlotFree()} follows the completion;</li>
 *   <li>the control send slots: {@code CONTROL_SENDS} small buffers; control frames that find
 *       none free wait in order, and data posted after them waits too, so frames leave in the
 *       order the engine gave them.</li>
 * </ul>
 * Each frame is one SEND_WITH_IMM carrying the frame type in its immediate value. Work requests
 * are DiSNI stateful verb calls built once per slot and reused.
 *
 * <p>Threads: one I/O thread per connection waits on the completion channel (with a timeout),
 * acknowledges, re-arms, then polls the queue until it is empty, and makes every handler call.
 * Sends are copied into their slot on the caller's thread and posted, in order, by the
 * connection's poster thread (on Soft-RoCE a post does the protocol work of the whole message);
 * receives are reposted on the releasing thread (a user-space queue write). Teardown, on complete, error
 * and cancel alike, runs on the I/O thread: disconnect, destroy the QP, deregister every region,
 * destroy CQ, channel, PD and CM id.
 */
final class RdmaConnection implements FrameConnection {

    private static final Logger log = Loggers.getLogger(RdmaConnection.class);

    /** Bytes registered by all connections of this JVM; for leak checks. */
    static final AtomicLong REGISTERED_BYTES = new AtomicLong();

    static final int PAGE = 4096;
    /** Receives posted beyond the engine's credits, for control frames. */
    static final int CONTROL_RECEIVES = 8;
    /** Control frames in flight at once. */
    static final int CONTROL_SENDS = 16;
    /** Largest control frame; the protocol's are far smaller. */
    static final int CONTROL_MAX = 64 * 1024;
    /** How long close() waits for queued frames to leave before tearing down anyway. */
    static final long CLOSE_FLUSH_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** Longest wait on the completion channel before checking other work. */
    static final int EVENT_WAIT_MS = 100;

    private static final long KIND_RECV = 0;
    private static final long KIND_DATA = 1L << 32;
    private static final long KIND_CONTROL = 2L << 32;
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final RdmaCmId id;
    private final RdmaEventChannel ownChannel;
    private final TransportOptions options;
    private final boolean accepted;
    private final String peer;
    private final int stride;
    private final int controlSize;
    private final int receiveCount;

    private IbvPd pd;
    private IbvCompChannel comp;
    private IbvCQ cq;
    private IbvQP qp;
    private int qpNum = -1;
    private IbvMr recvMr;
    private IbvMr sendMr;
    private IbvMr controlMr;
    private ByteBuffer[] recvSlots;
    private ByteBuffer[] sendSlots;
    private ByteBuffer[] controlSlots;
    private SVCPostRecv[] recvCalls;
    private SVCPostSend[] sendCalls;
    private SVCPostSend[][] controlCalls;
    private SVCPollCq poll;
    private IbvWC[] wcs;
    private final List<Object> verbCalls = new ArrayList<>();

    /** Guards the QP's existence: posts hold the read lock, teardown takes the write lock. */
    private final ReentrantReadWriteLock life = new ReentrantReadWriteLock();
    private boolean destroyed;

    /** Guards the send side: free slots, in-order pending posts, outstanding count. */
    private final Object sendLock = new Object();
    private final ArrayDeque<Integer> freeSend = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeControl = new ArrayDeque<>();
    private final ArrayDeque<long[]> pending = new ArrayDeque<>();
    private int outstandingSends;

    private volatile FrameHandler handler;
    private volatile boolean established;
    private volatile boolean peerGone;
    private volatile boolean closeRequested;
    private volatile long closeDeadline;
    private volatile ProtocolException failure;
    private final AtomicBoolean reported = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean tornDown = new AtomicBoolean();
    private volatile Runnable onTornDown;
    /** I/O thread statistics, printed at teardown when rdmaflux.rdma.stats is set. */
    private long statEvents;
    private long statTimeouts;
    private long statCompletions;
    private long statPolls;
    private long statStarted;
    static final boolean BUSY_POLL = Boolean.getBoolean("rdmaflux.rdma.busyPoll");
    /** Post sends from the connection's own thread (default) or from the caller's. */
    static final boolean POST_THREAD = !"false".equals(System.getProperty("rdmaflux.rdma.postThread"));
    static final boolean STATS = Boolean.getBoolean("rdmaflux.rdma.stats")
            || "1".equals(System.getenv("RDMAFLUX_RDMA_STATS"));
    private boolean counted;

    /**
     * Builds every verbs resource on an id whose route is resolved (client) or that arrived in a
     * connect request (server), and posts the whole receive ring. On failure, releases what it
     * made (but not the id or channel, which stay the caller's) and throws.
     */
    RdmaConnection(RdmaCmId id, RdmaEventChannel ownChannel, TransportOptions options, boolean accepted,
                   String peer) throws IOException {
        this.id = id;
        this.ownChannel = ownChannel;
        this.options = options;
        this.accepted = accepted;
        this.peer = peer;
        this.stride = roundUp(options.frameSize(), PAGE);
        this.controlSize = Math.min(stride, CONTROL_MAX);
        this.receiveCount = options.receiveSlots() + CONTROL_RECEIVES;
        long ringBytes = (long) stride * receiveCount;
        long sendBytes = (long) stride * options.sendSlots();
        if (ringBytes > Integer.MAX_VALUE - PAGE || sendBytes > Integer.MAX_VALUE - PAGE) {
            throw new ProtocolException(ErrorCode.INTERNAL, "RDMA buffers too large: " + receiveCount + " x "
                    + stride + " bytes; lower the frame size or the number of slots");
        }
        RdmaTransport.connectionOpened();
        counted = true;
        try {
            build(ringBytes, sendBytes);
        } catch (IOException | RuntimeException e) {
            release();
            throw e;
        }
    }

    private void build(long ringBytes, long sendBytes) throws IOException {
        IbvContext ctx = id.getVerbs();
        if (ctx == null) {
            throw new IOException("the connection manager gave no device for " + peer);
        }
        pd = ctx.allocPd();
        comp = ctx.createCompChannel();
        int sendDepth = options.sendSlots() + CONTROL_SENDS;
        cq = ctx.createCQ(comp, sendDepth + receiveCount + 1, 0);
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(sendDepth);
        attr.cap().setMax_recv_wr(receiveCount);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(0);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        qp = id.createQP(pd, attr);
        if (qp == null) {
            throw new IOException("queue pair creation failed");
        }
        qpNum = qp.getQp_num();

        ByteBuffer ring = pageAligned(ringBytes);
        ByteBuffer send = pageAligned(sendBytes);
        ByteBuffer control = pageAligned((long) controlSize * CONTROL_SENDS);
        recvMr = register(ring, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        sendMr = register(send, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        controlMr = register(control, IbvMr.IBV_ACCESS_LOCAL_WRITE);

        recvSlots = slice(ring, stride, receiveCount);
        sendSlots = slice(send, stride, options.sendSlots());
        controlSlots = slice(control, controlSize, CONTROL_SENDS);

        wcs = new IbvWC[Math.min(64, receiveCount + sendDepth)];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        poll = cq.poll(wcs, wcs.length);
        verbCalls.add(poll);

        recvCalls = new SVCPostRecv[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            recvCalls[i] = recvCall(recvMr, (long) i * stride, stride, KIND_RECV | i);
        }
        sendCalls = new SVCPostSend[options.sendSlots()];
        for (int i = 0; i < sendCalls.length; i++) {
            sendCalls[i] = sendCall(sendMr, (long) i * stride, stride, KIND_DATA | i, FrameType.DATA.code());
            freeSend.add(i);
        }
        controlCalls = new SVCPostSend[CONTROL_SENDS][];
        for (int i = 0; i < CONTROL_SENDS; i++) {
            controlCalls[i] = new SVCPostSend[16];
            freeControl.add(i);
        }
        cq.reqNotification(false).execute().free();
        for (SVCPostRecv r : recvCalls) {
            r.execute();
        }
    }

    private static int roundUp(int v, int to) {
        return (v + to - 1) / to * to;
    }

    private static ByteBuffer pageAligned(long bytes) {
        return ByteBuffer.allocateDirect((int) bytes + PAGE).alignedSlice(PAGE);
    }

    private static ByteBuffer[] slice(ByteBuffer region, int size, int count) {
        ByteBuffer[] out = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            out[i] = region.duplicate().position(i * size).limit(i * size + size).slice();
        }
        return out;
    }

    private IbvMr register(ByteBuffer region, int access) throws IOException {
        try {
            IbvMr mr = pd.regMr(region, access).execute().free().getMr();
            REGISTERED_BYTES.addAndGet(region.capacity());
            return mr;
        } catch (IOException e) {
            throw new IOException(e.getMessage() + " (registering " + region.capacity() + " bytes)", e);
        }
    }

    private SVCPostRecv recvCall(IbvMr mr, long offset, int length, long wrId) throws IOException {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sgl = new LinkedList<>();
        sgl.add(sge);
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sgl);
        wr.setNum_sge(1);
        List<IbvRecvWR> list = new ArrayList<>(1);
        list.add(wr);
        SVCPostRecv call = qp.postRecv(list, null);
        verbCalls.add(call);
        return call;
    }

    private SVCPostSend sendCall(IbvMr mr, long offset, int length, long wrId, int imm) throws IOException {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sgl = new LinkedList<>();
        sgl.add(sge);
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sgl);
        wr.setNum_sge(1);
        wr.setOpcode(IbvSendWR.IBV_WR_SEND_WITH_IMM);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setImm_data(imm);
        List<IbvSendWR> list = new ArrayList<>(1);
        list.add(wr);
        SVCPostSend call = qp.postSend(list, null);
        verbCalls.add(call);
        return call;
    }

    static RdmaConnParam connParam() throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count(RdmaTransport.RETRY_COUNT);
        p.setRnr_retry_count(RdmaTransport.RNR_RETRY_COUNT);
        return p;
    }

    /** The connection manager reported ESTABLISHED. */
    void established() {
        synchronized (sendLock) {
            if (POST_THREAD && poster == null && !tornDown.get()) {
                startPoster();
            }
        }
        established = true;
    }

    /** Called by the listener when it has to be told when teardown is complete. */
    void onTornDown(Runnable r) {
        this.onTornDown = r;
    }

    /** The peer disconnected (server side: reported by the listener's CM thread). */
    void peerDisconnected() {
        peerGone = true;
    }

    int qpNum() {
        return qpNum;
    }

    // ------------------------------------------------------------------ FrameConnection

    @Override
    public void start(FrameHandler handler) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("connection already started");
        }
        this.handler = handler;
        Thread t = new Thread(this::run, "rdma-flux-io-" + THREAD_IDS.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void sendControl(FrameType type, ByteBuffer payload) {
        int n = payload.remaining();
        if (n > controlSize) {
            fail(new ProtocolException(ErrorCode.PROTOCOL, "control frame " + type + " of " + n
                    + " bytes exceeds the RDMA control slot of " + controlSize + " bytes"));
            return;
        }
        byte[] copy = new byte[n];
        payload.duplicate().get(copy);
        synchronized (sendLock) {
            if (closeRequestedOrDead()) {
                return;
            }
            if (pending.isEmpty() && !freeControl.isEmpty()) {
                postControl(freeControl.poll(), type, copy);
            } else {
                pendingControl.add(copy);
                pending.add(new long[] {KIND_CONTROL, type.code()});
            }
        }
    }

    /** Payloads of pending control frames, in the order of their entries in {@link #pending}. */
    private final ArrayDeque<byte[]> pendingControl = new ArrayDeque<>();

    @Override
    public void sendData(Chunk payload) {
        try {
            int n = payload.remaining();
            if (n > options.frameSize()) {
                fail(new ProtocolException(ErrorCode.PROTOCOL, "data frame of " + n + " bytes exceeds the frame size "
                        + options.frameSize()));
                return;
            }
            synchronized (sendLock) {
                if (closeRequestedOrDead()) {
                    return;
                }
                Integer slot = freeSend.poll();
                if (slot == null) {
                    fail(new ProtocolException(ErrorCode.PROTOCOL, "no free RDMA send slot: more than "
                            + options.sendSlots() + " data frames in flight"));
                    return;
                }
                ByteBuffer dst = sendSlots[slot].duplicate().clear();
                dst.put(payload.buffer().duplicate());
                if (pending.isEmpty()) {
                    postData(slot, n);
                } else {
                    pending.add(new long[] {KIND_DATA, slot, n});
                }
            }
        } finally {
            payload.releaseQuietly();
        }
    }

    private boolean closeRequestedOrDead() {
        return failure != null || peerGone || tornDown.get();
    }

    /** Posts a data send; caller holds sendLock. */
    private void postData(int slot, int length) {
        post(sendCalls[slot], length);
    }

    /** Posts a control send from a free control slot; caller holds sendLock. */
    private void postControl(int slot, FrameType type, byte[] bytes) {
        sendControlSlotCopy(slot, bytes);
        SVCPostSend call = controlCalls[slot][type.code()];
        if (call == null) {
            life.readLock().lock();
            try {
                if (destroyed) {
                    return;
                }
                call = sendCall(controlMr, (long) slot * controlSize, controlSize, KIND_CONTROL | slot, type.code());
            } catch (IOException e) {
                fail(new ProtocolException(ErrorCode.TRUNCATED, "RDMA send set-up failed: " + e.getMessage(), e));
                return;
            } finally {
                life.readLock().unlock();
            }
            controlCalls[slot][type.code()] = call;
        }
        post(call, bytes.length);
    }

    private void sendControlSlotCopy(int slot, byte[] bytes) {
        ByteBuffer dst = controlSlots[slot].duplicate().clear();
        dst.put(bytes);
    }

    /**
     * Counts a send as outstanding and hands it to the poster thread, in order; caller holds
     * sendLock. Soft-RoCE does a message's protocol work inside the posting system call (tens of
     * ms per MiB under emulation, microseconds on hardware), so posts run on this connection's own
     * thread, never on the engine's (Reactor) threads, which meanwhile prepare the next frame.
     */
    private void post(SVCPostSend call, int length) {
        outstandingSends++;
        if (poster != null) {
            postQueue.add(new PostItem(call, length));
        } else {
            postNow(call, length);
        }
    }

    private void postNow(SVCPostSend call, int length) {
        life.readLock().lock();
        try {
            if (destroyed) {
                return;
            }
            call.getWrMod(0).getSgeMod(0).setLength(length);
            call.execute();
        } catch (IOException e) {
            fail(new ProtocolException(ErrorCode.TRUNCATED, "RDMA send on QP " + qpNum + " failed: " + e.getMessage(), e));
        } finally {
            life.readLock().unlock();
        }
    }

    private record PostItem(SVCPostSend call, int length) {
    }

    private static final PostItem STOP = new PostItem(null, 0);
    private final LinkedBlockingQueue<PostItem> postQueue = new LinkedBlockingQueue<>();
    private volatile Thread poster;

    private void startPoster() {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    PostItem item = postQueue.take();
                    if (item == STOP) {
                        return;
                    }
                    postNow(item.call(), item.length());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rdma-flux-post-" + THREAD_IDS.incrementAndGet());
        t.setDaemon(true);
        poster = t;
        t.start();
    }

    /** Moves pending posts out, in order, while control slots allow; caller holds sendLock. */
    private void flushPending() {
        while (!pending.isEmpty()) {
            long[] head = pending.peek();
            if (head[0] == KIND_DATA) {
                pending.poll();
                postData((int) head[1], (int) head[2]);
            } else if (!freeControl.isEmpty()) {
                pending.poll();
                postControl(freeControl.poll(), FrameType.of((int) head[1]), pendingControl.poll());
            } else {
                return;
            }
        }
    }

    private void repost(int slot) {
        life.readLock().lock();
        try {
            if (destroyed || peerGone) {
                return;
            }
            recvCalls[slot].execute();
        } catch (IOException e) {
            fail(new ProtocolException(ErrorCode.TRUNCATED, "RDMA receive repost on QP " + qpNum + " failed: "
                    + e.getMessage(), e));
        } finally {
            life.readLock().unlock();
        }
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
        return "rdma " + peer + (qpNum >= 0 ? " (QP " + qpNum + ")" : "");
    }

    /** Emitted once teardown is complete: queued frames sent (or abandoned), nothing registered. */
    private final Sinks.Empty<Void> closedSignal = Sinks.empty();

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
            Thread t = new Thread(this::teardown, "rdma-flux-close-" + THREAD_IDS.incrementAndGet());
            t.setDaemon(true);
            t.start();
        }
    }

    /** Releases everything after a failed set-up (before any thread was started). */
    void abortSetup() {
        started.set(true);
        teardown();
    }

    private void fail(ProtocolException e) {
        if (failure == null) {
            failure = e;
        }
    }

    // ------------------------------------------------------------------ I/O thread

    private void run() {
        statStarted = System.nanoTime();
        try {
            long lastCm = 0;
            while (true) {
                if (BUSY_POLL) {
                    // Experimental: spin on the CQ like perftest does, no completion events.
                    if (!drainCount()) {
                        Thread.onSpinWait();
                    }
                    long now = System.nanoTime();
                    if (now - lastCm < 50_000_000L && failure == null && !peerGone && !closeRequested) {
                        continue;
                    }
                    lastCm = now;
                } else if (comp.getCqEvent(cq, EVENT_WAIT_MS)) {
                    statEvents++;
                    cq.ackEvents(1);
                    cq.reqNotification(false).execute().free();
                } else {
                    statTimeouts++;
                }
                // Soft-RoCE raises no new event for completions queued before the re-arm:
                // always poll until the queue is empty.
                drain();
                if (ownChannel != null && !peerGone) {
                    pollOwnChannel();
                }
                if (failure != null) {
                    report(failure);
                    break;
                }
                if (peerGone) {
                    drain();
                    report(failure);
                    break;
                }
                if (closeRequested && (sendsIdle() || System.nanoTime() > closeDeadline)) {
                    break;
                }
            }
        } catch (Throwable t) {
            report(ProtocolException.wrap(t, ErrorCode.INTERNAL));
        } finally {
            teardown();
            report(null);
            if (STATS) {
                System.err.printf("rdma-flux stats %s: %d ms, %d events, %d wait timeouts, %d polls, %d completions%n",
                        describe(), (System.nanoTime() - statStarted) / 1_000_000, statEvents, statTimeouts,
                        statPolls, statCompletions);
            }
        }
    }

    private boolean sendsIdle() {
        synchronized (sendLock) {
            return outstandingSends == 0 && pending.isEmpty();
        }
    }

    private void pollOwnChannel() throws IOException {
        RdmaCmEvent ev = ownChannel.getCmEvent(0);
        if (ev == null) {
            return;
        }
        ev.ackEvent();
        int type = ev.getEvent();
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            peerGone = true;
        }
    }

    /** Drains; true when anything completed. */
    private boolean drainCount() throws IOException {
        long before = statCompletions;
        drain();
        return statCompletions != before;
    }

    private void drain() throws IOException {
        while (failure == null) {
            int n = poll.execute().getPolls();
            statPolls++;
            if (n <= 0) {
                return;
            }
            statCompletions += n;
            for (int i = 0; i < n; i++) {
                complete(wcs[i]);
            }
        }
    }

    private void complete(IbvWC wc) {
        long wrId = wc.getWr_id();
        long kind = wrId & ~0xffffffffL;
        int slot = (int) wrId;
        int status = wc.getStatus();
        if (status != IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()) {
            if (kind != KIND_RECV) {
                synchronized (sendLock) {
                    outstandingSends--;
                }
            }
            boolean flushed = status == IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal();
            if (flushed && (closeRequested || peerGone)) {
                return;
            }
            fail(errorCompletion(status, wrId));
            return;
        }
        if (kind == KIND_RECV) {
            received(slot, wc.getByte_len(), wc.getImm_data());
        } else if (kind == KIND_DATA) {
            synchronized (sendLock) {
                outstandingSends--;
                freeSend.add(slot);
            }
            if (!closeRequested) {
                handler.onSendSlotFree();
            }
        } else {
            synchronized (sendLock) {
                outstandingSends--;
                freeControl.add(slot);
                flushPending();
            }
        }
    }

    private void received(int slot, int length, int imm) {
        if (closeRequested) {
            repost(slot);
            return;
        }
        if (imm == FrameType.DATA.code()) {
            ByteBuffer b = recvSlots[slot].duplicate().clear().limit(length);
            Chunk chunk = Chunk.of(b, () -> repost(slot));
            handler.onDataFrame(chunk);
            return;
        }
        FrameType type;
        try {
            type = FrameType.of(imm);
        } catch (ProtocolException e) {
            repost(slot);
            fail(new ProtocolException(ErrorCode.PROTOCOL, "RDMA frame with unknown type " + imm + " from " + peer));
            return;
        }
        try {
            handler.onControlFrame(type, recvSlots[slot].duplicate().clear().limit(length).asReadOnlyBuffer());
        } finally {
            repost(slot);
        }
    }

    private ProtocolException errorCompletion(int status, long wrId) {
        String name = status >= 0 && status < IbvWC.IbvWcStatus.values().length
                ? IbvWC.IbvWcStatus.values()[status].name() : "status " + status;
        String what = (wrId & ~0xffffffffL) == KIND_RECV ? "receive" : "send";
        String hint = switch (name) {
            case "IBV_WC_RETRY_EXC_ERR" -> ": the peer stopped acknowledging (gone or unreachable)";
            case "IBV_WC_RNR_RETRY_EXC_ERR" -> ": the peer had no receive posted";
            case "IBV_WC_WR_FLUSH_ERR" -> ": the queue pair was flushed (connection torn down)";
            case "IBV_WC_LOC_LEN_ERR" -> ": a frame was larger than the receive slot";
            case "IBV_WC_REM_OP_ERR" -> ": the peer could not take the frame (its queue pair failed or is gone)";
            case "IBV_WC_REM_INV_REQ_ERR" -> ": the peer rejected the request as invalid";
            default -> "";
        };
        return new ProtocolException(ErrorCode.TRUNCATED, "RDMA " + what + " completion error on QP " + qpNum
                + " (" + peer + "): " + name + " (" + status + ")" + hint);
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

    private void teardown() {
        if (!tornDown.compareAndSet(false, true)) {
            return;
        }
        life.writeLock().lock();
        try {
            destroyed = true;
        } finally {
            life.writeLock().unlock();
        }
        Thread p = poster;
        if (p != null) {
            postQueue.add(STOP);
        }
        if (established) {
            quietly("disconnect", id::disconnect);
        }
        try {
            release();
        } finally {
            closedSignal.tryEmitEmpty();
        }
    }

    /** Frees every verbs resource that exists, in reverse order of creation. */
    private void release() {
        for (Object call : verbCalls) {
            if (call instanceof SVCPostSend s) {
                quietly("free send call", s::free);
            } else if (call instanceof SVCPostRecv r) {
                quietly("free receive call", r::free);
            } else if (call instanceof SVCPollCq p) {
                quietly("free poll call", p::free);
            }
        }
        verbCalls.clear();
        if (qp != null) {
            quietly("destroy QP", id::destroyQP);
            qp = null;
        }
        for (IbvMr mr : new IbvMr[] {recvMr, sendMr, controlMr}) {
            if (mr != null) {
                quietly("deregister memory", () -> mr.deregMr().execute().free());
                REGISTERED_BYTES.addAndGet(-mr.getLength());
            }
        }
        recvMr = sendMr = controlMr = null;
        if (cq != null) {
            quietly("destroy CQ", cq::destroyCQ);
            cq = null;
        }
        if (comp != null) {
            quietly("destroy completion channel", comp::destroyCompChannel);
            comp = null;
        }
        if (pd != null) {
            quietly("deallocate PD", pd::deallocPd);
            pd = null;
        }
        if (started.get() || tornDown.get()) {
            quietly("destroy CM id", id::destroyId);
            if (ownChannel != null) {
                quietly("destroy event channel", ownChannel::destroyEventChannel);
            }
        }
        if (counted) {
            counted = false;
            RdmaTransport.connectionReleased();
        }
        Runnable r = onTornDown;
        if (r != null) {
            r.run();
        }
    }

    private interface Step {
        Object run() throws Exception;
    }

    private void quietly(String what, Step step) {
        try {
            step.run();
        } catch (Exception | LinkageError e) {
            log.debug("RDMA teardown: {} on QP {} failed: {}", what, qpNum, e.toString());
        }
    }
}
