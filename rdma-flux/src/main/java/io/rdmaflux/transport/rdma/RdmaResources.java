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
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.StatefulVerbCall;
import io.rdmaflux.protocol.FrameType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The verbs resources of one connection: protection domain, completion channel and queue, an RC
 * queue pair, the registered regions of its {@link SlotLayout}, and DiSNI stateful verb calls
 * built once per slot and reused for every post. The data ring of an accepting side is
 * registered and posted only by {@link #openRing()}, once its peer has authenticated.
 *
 * <p>Posts may come from any thread; they hold a read lock that {@link #release()} takes for
 * writing, so nothing is posted to a queue pair that is being or has been destroyed (a post
 * after that is silently dropped). Polling and event handling belong to the connection's I/O
 * thread.
 *
 * <p>Each work request's id carries its kind in the high 32 bits and its slot in the low 32.
 */
final class RdmaResources {

    private static final Logger log = Loggers.getLogger(RdmaResources.class);

    /** Bytes registered by all connections of this JVM; for leak checks. */
    static final AtomicLong REGISTERED_BYTES = new AtomicLong();

    /** A receive in the data ring. */
    static final long KIND_RECV = 0;
    static final long KIND_DATA = 1L << 32;
    static final long KIND_CONTROL = 2L << 32;
    /** A small control receive (see {@link SlotLayout}). */
    static final long KIND_SMALL_RECV = 3L << 32;

    private static final int MAX_TYPE_CODE = Arrays.stream(FrameType.values()).mapToInt(FrameType::code).max().orElse(0);

    /** Whether a work request of this kind is a receive (ring or control), not a send. */
    static boolean isReceive(long kind) {
        return kind == KIND_RECV || kind == KIND_SMALL_RECV;
    }

    static long kindOf(long wrId) {
        return wrId & ~0xffffffffL;
    }

    static int slotOf(long wrId) {
        return (int) wrId;
    }

    private final RdmaCmId id;
    private final SlotLayout layout;
    /** Added to by the poster (control sends built on first use) and by {@link #openRing()}. */
    private final List<StatefulVerbCall<?>> verbCalls = Collections.synchronizedList(new ArrayList<>());
    private final ReentrantReadWriteLock life = new ReentrantReadWriteLock();
    private boolean destroyed;

    private IbvPd pd;
    private IbvCompChannel comp;
    private IbvCQ cq;
    private IbvQP qp;
    private int qpNum = -1;
    private IbvMr sendMr;
    private IbvMr controlMr;
    private IbvMr smallMr;
    private ByteBuffer[] sendSlots;
    private ByteBuffer[] controlSlots;
    private ByteBuffer[] smallSlots;
    private SVCPostRecv[] smallCalls;
    /** The data ring; null until {@link #openRing()}. Read by the completion and releasing threads. */
    private volatile Ring ring;
    private SVCPostSend[] sendCalls;
    /** Per control slot and frame type, built on first use (the type travels in the immediate). */
    private SVCPostSend[][] controlCalls;
    private SVCPollCq poll;
    private SVCReqNotify rearm;
    private IbvWC[] wcs;

    private RdmaResources(RdmaCmId id, SlotLayout layout) {
        this.id = id;
        this.layout = layout;
    }

    /** The registered data ring: its region, slots and prepared receives. */
    private record Ring(IbvMr mr, ByteBuffer[] slots, SVCPostRecv[] calls) {
    }

    /**
     * Builds every resource on an id whose route is resolved (client) or that arrived in a
     * connect request (server), arms the completion channel and posts the control receives
     * (not the data ring: {@link #openRing()}). On failure releases what it made (not the id,
     * which stays the caller's) and throws.
     */
    static RdmaResources open(RdmaCmId id, SlotLayout layout, String peer) throws IOException {
        layout.requireAllocatable();
        RdmaResources r = new RdmaResources(id, layout);
        try {
            r.build(peer);
            return r;
        } catch (IOException | RuntimeException e) {
            r.release();
            throw e;
        }
    }

    private void build(String peer) throws IOException {
        IbvContext ctx = id.getVerbs();
        if (ctx == null) {
            throw new IOException("the connection manager gave no device for " + peer);
        }
        pd = ctx.allocPd();
        comp = ctx.createCompChannel();
        int sendDepth = layout.sendCount() + SlotLayout.CONTROL_SENDS;
        cq = ctx.createCQ(comp, sendDepth + layout.receiveDepth() + 1, 0);
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(sendDepth);
        attr.cap().setMax_recv_wr(layout.receiveDepth());
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

        ByteBuffer control = pageAligned(layout.controlBytes());
        ByteBuffer small = pageAligned(layout.controlReceiveBytes());
        controlMr = register(control);
        smallMr = register(small);
        controlSlots = slice(control, layout.controlSize(), SlotLayout.CONTROL_SENDS);
        smallSlots = slice(small, SlotLayout.SMALL, layout.controlReceives());
        if (layout.sendCount() > 0) {
            ByteBuffer send = pageAligned(layout.sendBytes());
            sendMr = register(send);
            sendSlots = slice(send, layout.stride(), layout.sendCount());
        }

        wcs = new IbvWC[Math.min(64, layout.receiveDepth() + sendDepth)];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        poll = keep(cq.poll(wcs, wcs.length));
        rearm = keep(cq.reqNotification(false));

        smallCalls = receiveCalls(smallMr, SlotLayout.SMALL, layout.controlReceives(), KIND_SMALL_RECV);
        sendCalls = new SVCPostSend[layout.sendCount()];
        for (int i = 0; i < sendCalls.length; i++) {
            sendCalls[i] = sendCall(sendMr, (long) i * layout.stride(), layout.stride(), KIND_DATA | i,
                    FrameType.DATA.code());
        }
        controlCalls = new SVCPostSend[SlotLayout.CONTROL_SENDS][MAX_TYPE_CODE + 1];
        rearm.execute();
        for (SVCPostRecv r : smallCalls) {
            r.execute();
        }
    }

    /**
     * Registers the data ring and posts every receive in it; does nothing if it is up already
     * or once released. Receives are taken in the order they were posted, so the caller must
     * know that no control receive is still posted (an accepting side's two are taken by the
     * peer's HELLO and AUTH): a data frame would land in it otherwise.
     */
    void openRing() throws IOException {
        if (layout.ringCount() == 0) {
            throw new IllegalStateException("this side of the connection takes no data");
        }
        life.readLock().lock();
        try {
            if (destroyed || ring != null) {
                return;
            }
            ByteBuffer region = pageAligned(layout.ringBytes());
            IbvMr mr = register(region);
            SVCPostRecv[] calls = receiveCalls(mr, layout.stride(), layout.ringCount(), KIND_RECV);
            // Published before the first post: a completion may arrive at once.
            ring = new Ring(mr, slice(region, layout.stride(), layout.ringCount()), calls);
            for (SVCPostRecv call : calls) {
                call.execute();
            }
        } finally {
            life.readLock().unlock();
        }
    }

    boolean ringOpen() {
        return ring != null;
    }

    /** One prepared receive per slot of {@code size} bytes in {@code mr}, its id {@code kind | slot}. */
    private SVCPostRecv[] receiveCalls(IbvMr mr, int size, int count, long kind) throws IOException {
        SVCPostRecv[] calls = new SVCPostRecv[count];
        for (int i = 0; i < count; i++) {
            calls[i] = keep(qp.postRecv(List.of(receiveRequest(mr, (long) i * size, size, kind | i)), null));
        }
        return calls;
    }

    private <T extends StatefulVerbCall<?>> T keep(T call) {
        verbCalls.add(call);
        return call;
    }

    private static ByteBuffer pageAligned(long bytes) {
        return ByteBuffer.allocateDirect((int) bytes + SlotLayout.PAGE).alignedSlice(SlotLayout.PAGE);
    }

    private static ByteBuffer[] slice(ByteBuffer region, int size, int count) {
        ByteBuffer[] out = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            out[i] = region.slice(i * size, size);
        }
        return out;
    }

    private IbvMr register(ByteBuffer region) throws IOException {
        try {
            IbvMr mr = pd.regMr(region, IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr();
            REGISTERED_BYTES.addAndGet(region.capacity());
            return mr;
        } catch (IOException e) {
            throw new IOException(e.getMessage() + " (registering " + region.capacity() + " bytes)", e);
        }
    }

    private static LinkedList<IbvSge> sgl(IbvMr mr, long offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sgl = new LinkedList<>();
        sgl.add(sge);
        return sgl;
    }

    private static IbvRecvWR receiveRequest(IbvMr mr, long offset, int length, long wrId) {
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sgl(mr, offset, length));
        wr.setNum_sge(1);
        return wr;
    }

    private SVCPostSend sendCall(IbvMr mr, long offset, int length, long wrId, int imm) throws IOException {
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sgl(mr, offset, length));
        wr.setNum_sge(1);
        wr.setOpcode(IbvSendWR.IBV_WR_SEND_WITH_IMM);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setImm_data(imm);
        return keep(qp.postSend(List.of(wr), null));
    }

    int qpNum() {
        return qpNum;
    }

    /** The first {@code length} bytes of ring slot {@code slot}. */
    ByteBuffer receiveSlot(int slot, int length) {
        return ring.slots()[slot].duplicate().clear().limit(length);
    }

    /** The first {@code length} bytes of control receive {@code slot}. */
    ByteBuffer smallSlot(int slot, int length) {
        return smallSlots[slot].duplicate().clear().limit(length);
    }

    /** Data send slot {@code slot}, cleared, for the caller to fill. */
    ByteBuffer dataSlot(int slot) {
        return sendSlots[slot].duplicate().clear();
    }

    /**
     * Posts receive {@code slot} again: a ring slot for {@link #KIND_RECV}, a control receive for
     * {@link #KIND_SMALL_RECV}; does nothing once released.
     */
    void postReceive(long kind, int slot) throws IOException {
        life.readLock().lock();
        try {
            if (!destroyed) {
                (kind == KIND_SMALL_RECV ? smallCalls : ring.calls())[slot].execute();
            }
        } finally {
            life.readLock().unlock();
        }
    }

    /** Posts data send slot {@code slot} with its first {@code length} bytes. */
    void postData(int slot, int length) throws IOException {
        life.readLock().lock();
        try {
            if (!destroyed) {
                SVCPostSend call = sendCalls[slot];
                call.getWrMod(0).getSgeMod(0).setLength(length);
                call.execute();
            }
        } finally {
            life.readLock().unlock();
        }
    }

    /** Copies {@code payload} into control slot {@code slot} and posts it as a {@code type} frame. */
    void postControl(int slot, FrameType type, byte[] payload) throws IOException {
        controlSlots[slot].duplicate().clear().put(payload);
        life.readLock().lock();
        try {
            if (destroyed) {
                return;
            }
            SVCPostSend call = controlCalls[slot][type.code()];
            if (call == null) {
                call = sendCall(controlMr, (long) slot * layout.controlSize(), layout.controlSize(),
                        KIND_CONTROL | slot, type.code());
                controlCalls[slot][type.code()] = call;
            }
            call.getWrMod(0).getSgeMod(0).setLength(payload.length);
            call.execute();
        } finally {
            life.readLock().unlock();
        }
    }

    /** The completion channel's file descriptor, for {@link Waker#await}. */
    int completionChannelFd() {
        return Waker.fdOf(comp);
    }

    /**
     * Takes a pending completion event, if there is one, acknowledges it and re-arms the queue.
     * Completions queued before the re-arm raise no new event (Soft-RoCE keeps to that), so the
     * caller polls until the queue is empty after every event.
     *
     * @return whether there was an event
     */
    boolean takeEvent() throws IOException {
        if (!comp.getCqEvent(cq, 0)) {
            return false;
        }
        cq.ackEvents(1);
        rearm.execute();
        return true;
    }

    /** Polls the completion queue once; the completions are {@link #completion(int)} 0 to n-1. */
    int poll() throws IOException {
        return poll.execute().getPolls();
    }

    IbvWC completion(int i) {
        return wcs[i];
    }

    /** Makes every later post a no-op, after waiting for posts in progress. Idempotent. */
    void stopPosting() {
        life.writeLock().lock();
        try {
            destroyed = true;
        } finally {
            life.writeLock().unlock();
        }
    }

    /**
     * Frees every verbs resource that exists, in reverse order of creation: verb calls, QP,
     * registered regions, CQ, completion channel, PD. Stops posting first, which also waits for
     * an {@link #openRing()} in progress. Idempotent.
     */
    void release() {
        stopPosting();
        for (StatefulVerbCall<?> call : verbCalls) {
            quietly("free verb call", call::free);
        }
        verbCalls.clear();
        if (qp != null) {
            quietly("destroy QP", id::destroyQP);
            qp = null;
        }
        Ring r = ring;
        for (IbvMr mr : new IbvMr[] {r == null ? null : r.mr(), sendMr, controlMr, smallMr}) {
            if (mr != null) {
                quietly("deregister memory", () -> mr.deregMr().execute().free());
                REGISTERED_BYTES.addAndGet(-mr.getLength());
            }
        }
        ring = null;
        sendMr = controlMr = smallMr = null;
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
    }

    /** A teardown step whose failure is only worth a debug line. */
    interface Step {
        Object run() throws Exception;
    }

    void quietly(String what, Step step) {
        try {
            step.run();
        } catch (Exception | LinkageError e) {
            log.debug("RDMA teardown: {} on QP {} failed: {}", what, qpNum, e.toString());
        }
    }
}
