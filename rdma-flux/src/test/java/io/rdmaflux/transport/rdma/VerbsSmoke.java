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
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Proves the project's libdisni on real verbs, with nothing of the channel involved: DiSNI's
 * verbs API only (event channel, CM ids, PD, MRs, CQ with a completion channel, an RC queue
 * pair, stateful verb calls reused per slot). A server on address A and a client bound to
 * address B (two Soft-RoCE devices) exchange messages with SEND_WITH_IMM, then the client posts
 * a send with a wrong key and checks that the error completion is reported with its status.
 *
 * <p>Run inside the Soft-RoCE guest: {@code scripts/softroce/run rdma-flux/src/test/softroce/verbs-smoke}.
 * Exits 0 on success, 1 with a message otherwise.
 */
public final class VerbsSmoke {

    static final int MESSAGES = 32;
    static final int SIZE = 4096;
    static final int SLOTS = 8;
    static final int TIMEOUT_MS = 5000;

    public static void main(String[] args) throws Exception {
        String reason = RdmaNative.unavailableReason();
        if (reason != null) {
            fail("RDMA unavailable: " + reason);
        }
        InetAddress a = InetAddress.getByName(env("RDMAFLUX_RDMA_ADDR_A", "10.77.0.1"));
        InetAddress b = InetAddress.getByName(env("RDMAFLUX_RDMA_ADDR_B", "10.77.0.2"));
        int port = 19000 + (int) (ProcessHandle.current().pid() % 1000);

        // Timeouts are honoured: an empty channel returns null after the wait, not never.
        RdmaEventChannel idle = RdmaEventChannel.createEventChannel();
        long t0 = System.nanoTime();
        RdmaCmEvent none = idle.getCmEvent(300);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        check(none == null && waited >= 250 && waited < 3000, "getCmEvent(300) returned " + none + " after " + waited + " ms");
        System.out.println("ok: CM event wait honours its timeout (" + waited + " ms)");

        // The transport's threads wait on the channel's real descriptor (DiSNI's getFd() says 0)
        // together with a wake-up: nothing pending means a full wait, a wake-up ends it.
        int fd = Waker.fdOf(idle);
        String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        check(target.equals("/dev/infiniband/rdma_cm"), "event channel descriptor " + fd + " is " + target);
        try (Waker w = new Waker()) {
            check(w.await(fd, -1, 300) == 0, "a wait on an idle event channel ended early");
            w.wake();
            check(w.await(fd, -1, 60_000) == Waker.WOKEN, "a woken wait did not report the wake-up");
        }
        idle.destroyEventChannel();
        System.out.println("ok: waits on event channel fd " + fd + " (" + target + ") time out and wake up");

        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            try {
                server(new InetSocketAddress(a, port));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(500);
        client(new InetSocketAddress(b, 0), new InetSocketAddress(a, port));
        server.get(60, TimeUnit.SECONDS);
        System.out.println("verbs smoke: PASS");
    }

    /** Resources of one side, torn down in reverse order. */
    static final class Side {
        RdmaEventChannel channel;
        RdmaCmId id;
        RdmaCmId listenId;
        IbvPd pd;
        IbvCompChannel comp;
        IbvCQ cq;
        IbvQP qp;
        ByteBuffer memory;
        IbvMr mr;
        final List<SVCPostRecv> recvs = new ArrayList<>();
        final List<SVCPostSend> sends = new ArrayList<>();
        SVCPollCq poll;
        final IbvWC[] wcs = new IbvWC[16];

        void setUp(RdmaCmId connId) throws IOException {
            id = connId;
            IbvContext ctx = id.getVerbs();
            pd = ctx.allocPd();
            comp = ctx.createCompChannel();
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + Waker.fdOf(comp))).toString();
            check(target.contains("infinibandevent"), "completion channel descriptor is " + target);
            cq = ctx.createCQ(comp, 64, 0);
            cq.reqNotification(false).execute().free();
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(SLOTS + 1);
            attr.cap().setMax_recv_wr(SLOTS);
            attr.cap().setMax_send_sge(1);
            attr.cap().setMax_recv_sge(1);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            qp = id.createQP(pd, attr);
            memory = ByteBuffer.allocateDirect(2 * SLOTS * SIZE + 4096).alignedSlice(4096);
            mr = pd.regMr(memory, IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr();
            for (int i = 0; i < 16; i++) {
                wcs[i] = new IbvWC();
            }
            poll = cq.poll(wcs, wcs.length);
            for (int i = 0; i < SLOTS; i++) {
                IbvSge sge = new IbvSge();
                sge.setAddr(mr.getAddr() + (long) i * SIZE);
                sge.setLength(SIZE);
                sge.setLkey(mr.getLkey());
                LinkedList<IbvSge> sgl = new LinkedList<>();
                sgl.add(sge);
                IbvRecvWR wr = new IbvRecvWR();
                wr.setWr_id(i);
                wr.setSg_list(sgl);
                wr.setNum_sge(1);
                List<IbvRecvWR> list = new ArrayList<>();
                list.add(wr);
                recvs.add(qp.postRecv(list, null));
            }
            for (int i = 0; i < SLOTS; i++) {
                IbvSge sge = new IbvSge();
                sge.setAddr(mr.getAddr() + (long) (SLOTS + i) * SIZE);
                sge.setLength(SIZE);
                sge.setLkey(mr.getLkey());
                LinkedList<IbvSge> sgl = new LinkedList<>();
                sgl.add(sge);
                IbvSendWR wr = new IbvSendWR();
                wr.setWr_id(1000 + i);
                wr.setSg_list(sgl);
                wr.setNum_sge(1);
                wr.setOpcode(IbvSendWR.IBV_WR_SEND_WITH_IMM);
                wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
                wr.setImm_data(0x5a000000 | i);
                List<IbvSendWR> list = new ArrayList<>();
                list.add(wr);
                sends.add(qp.postSend(list, null));
            }
            for (SVCPostRecv r : recvs) {
                r.execute();
            }
        }

        ByteBuffer slot(int i) {
            return memory.duplicate().position(i * SIZE).limit((i + 1) * SIZE).slice();
        }

        /** Waits for completions: event, ack, re-arm, then poll until the queue is empty. */
        List<IbvWC> completions(int atLeast) throws IOException {
            List<IbvWC> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            while (out.size() < atLeast) {
                drain(out);
                if (out.size() >= atLeast) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("timed out waiting for completions: " + out.size() + " of " + atLeast);
                }
                if (comp.getCqEvent(cq, 200)) {
                    cq.ackEvents(1);
                    cq.reqNotification(false).execute().free();
                }
            }
            return out;
        }

        private void drain(List<IbvWC> out) throws IOException {
            int n;
            do {
                n = poll.execute().getPolls();
                for (int i = 0; i < n; i++) {
                    IbvWC w = new IbvWC();
                    w.setWr_id(wcs[i].getWr_id());
                    w.setStatus(wcs[i].getStatus());
                    w.setOpcode(wcs[i].getOpcode());
                    w.setByte_len(wcs[i].getByte_len());
                    w.setImm_data(wcs[i].getImm_data());
                    w.setQp_num(wcs[i].getQp_num());
                    out.add(w);
                }
            } while (n > 0);
        }

        void tearDown() throws Exception {
            if (id != null && qp != null) {
                id.disconnect();
            }
            if (poll != null) {
                poll.free();
            }
            recvs.forEach(SVCPostRecv::free);
            sends.forEach(SVCPostSend::free);
            if (qp != null) {
                id.destroyQP();
            }
            if (mr != null) {
                mr.deregMr().execute().free();
            }
            if (cq != null) {
                cq.destroyCQ();
            }
            if (comp != null) {
                comp.destroyCompChannel();
            }
            if (pd != null) {
                pd.deallocPd();
            }
            if (id != null) {
                id.destroyId();
            }
            if (listenId != null) {
                listenId.destroyId();
            }
            if (channel != null) {
                channel.destroyEventChannel();
            }
        }
    }

    static RdmaCmEvent expect(RdmaEventChannel ch, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent ev = ch.getCmEvent(TIMEOUT_MS);
        if (ev == null) {
            throw new IOException("no " + type + " within " + TIMEOUT_MS + " ms");
        }
        ev.ackEvent();
        if (ev.getEvent() != type.ordinal()) {
            throw new IOException("expected " + type + " but got " + RdmaCmEvent.EventType.values()[ev.getEvent()]);
        }
        return ev;
    }

    static RdmaConnParam connParam() throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count((byte) 7);
        p.setRnr_retry_count((byte) 7);
        return p;
    }

    static void server(InetSocketAddress at) throws Exception {
        Side s = new Side();
        try {
            s.channel = RdmaEventChannel.createEventChannel();
            s.listenId = s.channel.createId(RdmaCm.RDMA_PS_TCP);
            s.listenId.bindAddr(at);
            s.listenId.listen(4);
            RdmaCmEvent req = expect(s.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
            s.setUp(req.getConnIdPriv());
            s.id.accept(connParam());
            expect(s.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
            int got = 0;
            while (got < MESSAGES) {
                for (IbvWC wc : s.completions(1)) {
                    check(wc.getStatus() == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), "server completion status " + wc.getStatus());
                    int slot = (int) wc.getWr_id();
                    int imm = wc.getImm_data();
                    check(wc.getByte_len() == SIZE, "byte_len " + wc.getByte_len());
                    check((imm & 0xff000000) == 0x5a000000, "imm " + Integer.toHexString(imm));
                    ByteBuffer m = s.slot(slot);
                    for (int i = 0; i < SIZE; i += 512) {
                        check(m.get(i) == (byte) (got + i / 512), "message " + got + " byte " + i + " was " + m.get(i));
                    }
                    got++;
                    s.recvs.get(slot).execute();
                }
            }
            System.out.println("ok: server received " + got + " messages of " + SIZE + " bytes with immediate data");
            // The client disconnects after its error test; wait for that.
            expect(s.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);
        } finally {
            s.tearDown();
        }
    }

    static void client(InetSocketAddress from, InetSocketAddress to) throws Exception {
        Side c = new Side();
        try {
            c.channel = RdmaEventChannel.createEventChannel();
            RdmaCmId id = c.channel.createId(RdmaCm.RDMA_PS_TCP);
            c.id = id;
            id.bindAddr(from);
            id.resolveAddr(null, to, 2000);
            expect(c.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
            id.resolveRoute(2000);
            expect(c.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
            c.setUp(id);
            id.connect(connParam());
            expect(c.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
            int qpn = c.qp.getQp_num();
            System.out.println("ok: connected " + from.getAddress().getHostAddress() + " -> " + to + ", QP " + qpn);
            int sent = 0;
            int inFlight = 0;
            int next = 0;
            while (sent < MESSAGES || inFlight > 0) {
                while (sent < MESSAGES && inFlight < SLOTS) {
                    int slot = next;
                    next = (next + 1) % SLOTS;
                    ByteBuffer m = c.slot(SLOTS + slot);
                    for (int i = 0; i < SIZE; i += 512) {
                        m.put(i, (byte) (sent + i / 512));
                    }
                    c.sends.get(slot).execute();
                    sent++;
                    inFlight++;
                }
                for (IbvWC wc : c.completions(1)) {
                    check(wc.getStatus() == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), "send completion status " + wc.getStatus());
                    inFlight--;
                }
            }
            System.out.println("ok: client sent " + sent + " messages, all completions successful");

            // An error completion is reported with its status (and, with one CQ per QP, its QP).
            IbvSge bad = new IbvSge();
            bad.setAddr(c.mr.getAddr());
            bad.setLength(64);
            bad.setLkey(c.mr.getLkey() ^ 0x7f00);
            LinkedList<IbvSge> sgl = new LinkedList<>();
            sgl.add(bad);
            IbvSendWR wr = new IbvSendWR();
            wr.setWr_id(4242);
            wr.setSg_list(sgl);
            wr.setNum_sge(1);
            wr.setOpcode(IbvSendWR.IBV_WR_SEND);
            wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            List<IbvSendWR> list = new ArrayList<>();
            list.add(wr);
            SVCPostSend badSend = c.qp.postSend(list, null);
            badSend.execute().free();
            IbvWC err = c.completions(1).get(0);
            check(err.getWr_id() == 4242 && err.getStatus() != 0, "expected an error completion, got status " + err.getStatus());
            System.out.println("ok: error completion reported: QP " + qpn + " status "
                    + IbvWC.IbvWcStatus.valueOf(err.getStatus()) + " (" + err.getStatus() + ")");
        } finally {
            c.tearDown();
        }
        System.out.println("ok: client torn down (disconnect, destroy QP, deregister, destroy CQ/channel/PD/id)");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            fail(what);
        }
    }

    static void fail(String what) {
        System.err.println("verbs smoke: FAIL: " + what);
        System.exit(1);
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
