/*
 * Verbs half of NativeDispatcher: protection domains, completion channels and queues, memory
 * registration, posting work requests, polling, and the layout queries DiSNI makes at start.
 *
 * Differences from DiSNI's original native code, on purpose:
 *  - completion waits honour their timeout (non-blocking channel descriptor plus poll);
 *  - work requests are rebuilt from DiSNI's fixed layout into real libibverbs structs, so a
 *    newer, larger struct ibv_send_wr cannot be misread;
 *  - ibv_poll_cq writes whole struct ibv_wc records, so an error completion keeps its QP number
 *    and vendor error next to its status, and with RDMAFLUX_NATIVE_TRACE=1 each error
 *    completion is printed with QP number, status text and vendor error;
 *  - failures throw IOException naming the verb, the errno text, and the QP where there is one.
 */
#include "disni_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JNI_FN(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher_##name

_Static_assert(sizeof(struct ibv_wc) == 48, "DiSNI's IbvWC expects 48-byte completions");
_Static_assert(sizeof(struct ibv_sge) == RF_SGE_SIZE, "DiSNI writes 16-byte scatter entries");

static inline uint64_t rf_u64(uintptr_t base, int off)
{
    uint64_t v;
    memcpy(&v, (const void *) (base + (uintptr_t) off), sizeof(v));
    return v;
}

static inline uint32_t rf_u32(uintptr_t base, int off)
{
    uint32_t v;
    memcpy(&v, (const void *) (base + (uintptr_t) off), sizeof(v));
    return v;
}

JNIEXPORT jlong JNICALL JNI_FN(_1allocPd)(JNIEnv *env, jobject self, jlong ctx)
{
    struct ibv_pd *pd;

    (void) self;
    pd = ibv_alloc_pd(RF_PTR(ctx));
    if (pd == NULL) {
        rf_throw_errno(env, "ibv_alloc_pd failed", errno);
        return -1;
    }
    return RF_HANDLE(pd);
}

JNIEXPORT jlong JNICALL JNI_FN(_1createCompChannel)(JNIEnv *env, jobject self, jlong ctx)
{
    struct ibv_comp_channel *ch;
    int err;

    (void) self;
    ch = ibv_create_comp_channel(RF_PTR(ctx));
    if (ch == NULL) {
        rf_throw_errno(env, "ibv_create_comp_channel failed", errno);
        return -1;
    }
    err = rf_set_nonblocking(ch->fd);
    if (err != 0) {
        ibv_destroy_comp_channel(ch);
        rf_throw_errno(env, "cannot make the completion channel non-blocking", err);
        return -1;
    }
    return RF_HANDLE(ch);
}

JNIEXPORT jlong JNICALL JNI_FN(_1createCQ)(JNIEnv *env, jobject self, jlong ctx, jlong channel,
                                           jint ncqe, jint vector)
{
    struct ibv_cq *cq;
    char what[96];

    (void) self;
    cq = ibv_create_cq(RF_PTR(ctx), ncqe, NULL, channel != 0 ? RF_PTR(channel) : NULL, vector);
    if (cq == NULL) {
        snprintf(what, sizeof(what), "ibv_create_cq failed (%d entries, vector %d)", ncqe, vector);
        rf_throw_errno(env, what, errno);
        return -1;
    }
    return RF_HANDLE(cq);
}

/* DiSNI's Java passes no attributes (RDMA CM moves the QP through its states); nothing to do. */
JNIEXPORT jint JNICALL JNI_FN(_1modifyQP)(JNIEnv *env, jobject self, jlong qp, jlong attr)
{
    (void) env;
    (void) self;
    (void) qp;
    (void) attr;
    return 0;
}

JNIEXPORT jlong JNICALL JNI_FN(_1regMr)(JNIEnv *env, jobject self, jlong pd, jlong addr, jint len,
                                        jint access, jlong lkeyOut, jlong rkeyOut, jlong handleOut)
{
    struct ibv_mr *mr;
    char what[128];

    (void) self;
    mr = ibv_reg_mr(RF_PTR(pd), RF_PTR(addr), (size_t) (uint32_t) len, access);
    if (mr == NULL) {
        int err = errno;
        snprintf(what, sizeof(what), "ibv_reg_mr of %u bytes failed%s", (unsigned) len,
                 (err == ENOMEM || err == EPERM) ? " (memlock limit too low? try ulimit -l unlimited)" : "");
        rf_throw_errno(env, what, err);
        return -1;
    }
    *(uint32_t *) RF_PTR(lkeyOut) = mr->lkey;
    *(uint32_t *) RF_PTR(rkeyOut) = mr->rkey;
    *(uint32_t *) RF_PTR(handleOut) = mr->handle;
    return RF_HANDLE(mr);
}

/* Returns the RC on-demand-paging capabilities, or -1 when the device has none. */
JNIEXPORT jint JNICALL JNI_FN(_1queryOdpSupport)(JNIEnv *env, jobject self, jlong ctx)
{
    struct ibv_device_attr_ex attr;

    (void) env;
    (void) self;
    memset(&attr, 0, sizeof(attr));
    if (ibv_query_device_ex(RF_PTR(ctx), NULL, &attr) != 0) {
        return -1;
    }
    if (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
        return -1;
    }
    return (jint) attr.odp_caps.per_transport_caps.rc_odp_caps;
}

JNIEXPORT jint JNICALL JNI_FN(_1expPrefetchMr)(JNIEnv *env, jobject self, jlong handle, jlong addr,
                                               jint len)
{
    struct ibv_mr *mr = RF_PTR(handle);
    struct ibv_sge sge;
    int ret;

    (void) self;
    sge.addr = (uint64_t) addr;
    sge.length = (uint32_t) len;
    sge.lkey = mr->lkey;
    ret = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
    if (ret != 0) {
        rf_throw_errno(env, "ibv_advise_mr (prefetch) failed", ret);
        return -1;
    }
    return 0;
}

JNIEXPORT void JNICALL JNI_FN(_1deregMr)(JNIEnv *env, jobject self, jlong handle)
{
    int ret;

    (void) self;
    ret = ibv_dereg_mr(RF_PTR(handle));
    if (ret != 0) {
        rf_throw_errno(env, "ibv_dereg_mr failed", ret);
    }
}

/* Up to this many work requests are rebuilt on the stack; longer lists use the heap. */
#define RF_STACK_WRS 16

JNIEXPORT void JNICALL JNI_FN(_1postSend)(JNIEnv *env, jobject self, jlong qph, jlong list)
{
    struct ibv_qp *qp = RF_PTR(qph);
    struct ibv_send_wr local[RF_STACK_WRS];
    struct ibv_send_wr *wrs = local;
    struct ibv_send_wr *bad = NULL;
    uintptr_t p;
    size_t n = 0;
    size_t i;
    int ret;
    char what[160];

    (void) self;
    for (p = (uintptr_t) list; p != 0; p = (uintptr_t) rf_u64(p, RF_SEND_WR_NEXT)) {
        n++;
    }
    if (n == 0) {
        return;
    }
    if (n > RF_STACK_WRS) {
        wrs = calloc(n, sizeof(*wrs));
        if (wrs == NULL) {
            rf_throw_errno(env, "ibv_post_send: out of memory", ENOMEM);
            return;
        }
    } else {
        memset(local, 0, n * sizeof(*wrs));
    }
    for (i = 0, p = (uintptr_t) list; i < n; i++, p = (uintptr_t) rf_u64(p, RF_SEND_WR_NEXT)) {
        struct ibv_send_wr *w = &wrs[i];
        w->wr_id = rf_u64(p, RF_SEND_WR_ID);
        w->next = (i + 1 < n) ? &wrs[i + 1] : NULL;
        w->sg_list = RF_PTR(rf_u64(p, RF_SEND_WR_SGL));
        w->num_sge = (int) rf_u32(p, RF_SEND_WR_NUM_SGE);
        w->opcode = (enum ibv_wr_opcode) rf_u32(p, RF_SEND_WR_OPCODE);
        w->send_flags = rf_u32(p, RF_SEND_WR_FLAGS);
        w->imm_data = rf_u32(p, RF_SEND_WR_IMM);
        w->wr.rdma.remote_addr = rf_u64(p, RF_SEND_WR_REMOTE_ADDR);
        w->wr.rdma.rkey = rf_u32(p, RF_SEND_WR_RKEY);
    }
    ret = ibv_post_send(qp, wrs, &bad);
    if (ret != 0) {
        snprintf(what, sizeof(what), "ibv_post_send on QP %u failed at request %ld of %zu (wr_id %llu)",
                 qp->qp_num, bad != NULL ? (long) (bad - wrs) : -1L, n,
                 bad != NULL ? (unsigned long long) bad->wr_id : 0ULL);
        rf_throw_errno(env, what, ret);
    }
    if (wrs != local) {
        free(wrs);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1postRecv)(JNIEnv *env, jobject self, jlong qph, jlong list)
{
    struct ibv_qp *qp = RF_PTR(qph);
    struct ibv_recv_wr local[RF_STACK_WRS];
    struct ibv_recv_wr *wrs = local;
    struct ibv_recv_wr *bad = NULL;
    uintptr_t p;
    size_t n = 0;
    size_t i;
    int ret;
    char what[160];

    (void) self;
    for (p = (uintptr_t) list; p != 0; p = (uintptr_t) rf_u64(p, RF_RECV_WR_NEXT)) {
        n++;
    }
    if (n == 0) {
        return;
    }
    if (n > RF_STACK_WRS) {
        wrs = calloc(n, sizeof(*wrs));
        if (wrs == NULL) {
            rf_throw_errno(env, "ibv_post_recv: out of memory", ENOMEM);
            return;
        }
    } else {
        memset(local, 0, n * sizeof(*wrs));
    }
    for (i = 0, p = (uintptr_t) list; i < n; i++, p = (uintptr_t) rf_u64(p, RF_RECV_WR_NEXT)) {
        struct ibv_recv_wr *w = &wrs[i];
        w->wr_id = rf_u64(p, RF_RECV_WR_ID);
        w->next = (i + 1 < n) ? &wrs[i + 1] : NULL;
        w->sg_list = RF_PTR(rf_u64(p, RF_RECV_WR_SGL));
        w->num_sge = (int) rf_u32(p, RF_RECV_WR_NUM_SGE);
    }
    ret = ibv_post_recv(qp, wrs, &bad);
    if (ret != 0) {
        snprintf(what, sizeof(what), "ibv_post_recv on QP %u failed at request %ld of %zu (wr_id %llu)",
                 qp->qp_num, bad != NULL ? (long) (bad - wrs) : -1L, n,
                 bad != NULL ? (unsigned long long) bad->wr_id : 0ULL);
        rf_throw_errno(env, what, ret);
    }
    if (wrs != local) {
        free(wrs);
    }
}

/*
 * Waits up to timeout ms (negative: without limit) for a completion event. Returns 0 when one
 * was taken (the caller acknowledges it with _ackCqEvent), -1 on timeout or interruption.
 */
JNIEXPORT jint JNICALL JNI_FN(_1getCqEvent)(JNIEnv *env, jobject self, jlong channel, jint timeout)
{
    struct ibv_comp_channel *ch = RF_PTR(channel);
    struct ibv_cq *cq = NULL;
    void *cq_ctx = NULL;
    int ready;

    (void) self;
    for (;;) {
        if (ibv_get_cq_event(ch, &cq, &cq_ctx) == 0) {
            return 0;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            rf_throw_errno(env, "ibv_get_cq_event failed", errno);
            return -1;
        }
        ready = rf_wait_readable(ch->fd, timeout);
        if (ready == 0) {
            return -1;
        }
        if (ready < 0) {
            rf_throw_errno(env, "waiting for a completion event failed", errno);
            return -1;
        }
    }
}

JNIEXPORT jint JNICALL JNI_FN(_1pollCQ)(JNIEnv *env, jobject self, jlong cqh, jint ne, jlong out)
{
    struct ibv_wc *wc = RF_PTR(out);
    int n;
    int i;

    (void) env;
    (void) self;
    n = ibv_poll_cq(RF_PTR(cqh), ne, wc);
    if (n < 0) {
        rf_trace("ibv_poll_cq failed: %d", n);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (wc[i].status != IBV_WC_SUCCESS) {
            rf_trace("error completion: QP %u status %d (%s) vendor_err 0x%x wr_id %llu",
                     wc[i].qp_num, (int) wc[i].status, ibv_wc_status_str(wc[i].status),
                     wc[i].vendor_err, (unsigned long long) wc[i].wr_id);
        }
    }
    return n;
}

JNIEXPORT jint JNICALL JNI_FN(_1reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq, jint solicited)
{
    int ret;

    (void) self;
    ret = ibv_req_notify_cq(RF_PTR(cq), solicited);
    if (ret != 0) {
        rf_throw_errno(env, "ibv_req_notify_cq failed", ret);
        return -1;
    }
    return 0;
}

JNIEXPORT jint JNICALL JNI_FN(_1ackCqEvent)(JNIEnv *env, jobject self, jlong cq, jint n)
{
    (void) env;
    (void) self;
    if (n > 0) {
        ibv_ack_cq_events(RF_PTR(cq), (unsigned int) n);
    }
    return 0;
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyCompChannel)(JNIEnv *env, jobject self, jlong ch)
{
    (void) env;
    (void) self;
    return ibv_destroy_comp_channel(RF_PTR(ch)) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL JNI_FN(_1deallocPd)(JNIEnv *env, jobject self, jlong pd)
{
    int ret;

    (void) env;
    (void) self;
    ret = ibv_dealloc_pd(RF_PTR(pd));
    return ret == 0 ? 0 : -ret;
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyCQ)(JNIEnv *env, jobject self, jlong cq)
{
    int ret;

    (void) env;
    (void) self;
    ret = ibv_destroy_cq(RF_PTR(cq));
    return ret == 0 ? 0 : -ret;
}

JNIEXPORT jint JNICALL JNI_FN(_1getQpNum)(JNIEnv *env, jobject self, jlong qp)
{
    (void) self;
    if (qp == 0) {
        rf_throw(env, "no queue pair");
        return -1;
    }
    return (jint) ((struct ibv_qp *) RF_PTR(qp))->qp_num;
}

JNIEXPORT jint JNICALL JNI_FN(_1getContextFd)(JNIEnv *env, jobject self, jlong ctx)
{
    (void) env;
    (void) self;
    return ((struct ibv_context *) RF_PTR(ctx))->cmd_fd;
}

JNIEXPORT jint JNICALL JNI_FN(_1getContextNumCompVectors)(JNIEnv *env, jobject self, jlong ctx)
{
    (void) env;
    (void) self;
    return ((struct ibv_context *) RF_PTR(ctx))->num_comp_vectors;
}

JNIEXPORT jint JNICALL JNI_FN(_1getPdHandle)(JNIEnv *env, jobject self, jlong pd)
{
    (void) env;
    (void) self;
    return (jint) ((struct ibv_pd *) RF_PTR(pd))->handle;
}

JNIEXPORT jint JNICALL JNI_FN(_1getSockAddrInSize)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_SOCKADDR_SIZE;
}

JNIEXPORT jint JNICALL JNI_FN(_1getIbvRecvWRSize)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_RECV_WR_SIZE;
}

JNIEXPORT jint JNICALL JNI_FN(_1getIbvSendWRSize)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_SEND_WR_SIZE;
}

JNIEXPORT jint JNICALL JNI_FN(_1getIbvSgeSize)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_SGE_SIZE;
}

JNIEXPORT jint JNICALL JNI_FN(_1getIbvWCSize)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return (jint) sizeof(struct ibv_wc);
}

JNIEXPORT jint JNICALL JNI_FN(_1getRemoteAddressOffset)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_SEND_WR_REMOTE_ADDR;
}

JNIEXPORT jint JNICALL JNI_FN(_1getRKeyOffset)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_SEND_WR_RKEY;
}

JNIEXPORT jint JNICALL JNI_FN(_1getVersion)(JNIEnv *env, jobject self)
{
    (void) env;
    (void) self;
    return RF_JVERBS_VERSION;
}
