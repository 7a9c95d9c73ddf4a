/*
 * RDMA connection manager half of NativeDispatcher: event channels, ids, address and route
 * resolution, connect/accept/disconnect, queue-pair creation on an id.
 *
 * Differences from DiSNI's original native code, on purpose:
 *  - every event wait honours its timeout (the channel's descriptor is non-blocking and waited
 *    on with poll), so no caller can hang forever in _getCmEvent unless it asks to;
 *  - an event is acknowledged as soon as its facts are copied out, so rdma_destroy_id (which
 *    waits for unacknowledged events) can never deadlock on an event Java forgot to ack;
 *  - failures throw IOException with the librdmacm call, errno text and value.
 */
#include "disni_common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#define JNI_FN(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher_##name

JNIEXPORT jlong JNICALL JNI_FN(_1createEventChannel)(JNIEnv *env, jobject self)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    int err;

    (void) self;
    if (ch == NULL) {
        rf_throw_errno(env, "rdma_create_event_channel failed (is the rdma_ucm module loaded?)", errno);
        return -1;
    }
    err = rf_set_nonblocking(ch->fd);
    if (err != 0) {
        rdma_destroy_event_channel(ch);
        rf_throw_errno(env, "cannot make the CM event channel non-blocking", err);
        return -1;
    }
    rf_trace("event channel %p fd %d", (void *) ch, ch->fd);
    return RF_HANDLE(ch);
}

JNIEXPORT jlong JNICALL JNI_FN(_1createId)(JNIEnv *env, jobject self, jlong channel, jshort ps)
{
    struct rdma_cm_id *id = NULL;

    (void) self;
    if (rdma_create_id(RF_PTR(channel), &id, NULL, (enum rdma_port_space) (uint16_t) ps) != 0) {
        rf_throw_errno(env, "rdma_create_id failed", errno);
        return -1;
    }
    return RF_HANDLE(id);
}

JNIEXPORT jlong JNICALL JNI_FN(_1createQP)(JNIEnv *env, jobject self, jlong idh, jlong pd,
                                           jlong sendcq, jlong recvcq, jint qptype,
                                           jint maxsendwr, jint maxrecvwr, jint maxinline)
{
    struct rdma_cm_id *id = RF_PTR(idh);
    struct ibv_qp_init_attr attr;
    char what[160];

    (void) self;
    memset(&attr, 0, sizeof(attr));
    attr.send_cq = RF_PTR(sendcq);
    attr.recv_cq = RF_PTR(recvcq);
    attr.qp_type = (enum ibv_qp_type) qptype;
    attr.sq_sig_all = 0;
    attr.cap.max_send_wr = (uint32_t) maxsendwr;
    attr.cap.max_recv_wr = (uint32_t) maxrecvwr;
    /* Zero capacities are refused by some providers (rxe): always allow one entry. */
    attr.cap.max_send_sge = 2;
    attr.cap.max_recv_sge = 2;
    attr.cap.max_inline_data = maxinline > 0 ? (uint32_t) maxinline : 0;
    if (rdma_create_qp(id, RF_PTR(pd), &attr) != 0) {
        snprintf(what, sizeof(what), "rdma_create_qp failed (send_wr %d, recv_wr %d, inline %d)",
                 maxsendwr, maxrecvwr, maxinline);
        rf_throw_errno(env, what, errno);
        return -1;
    }
    rf_trace("qp %p num %u on id %p", (void *) id->qp, id->qp->qp_num, (void *) id);
    return RF_HANDLE(id->qp);
}

JNIEXPORT void JNICALL JNI_FN(_1bindAddr)(JNIEnv *env, jobject self, jlong id, jlong addr)
{
    (void) self;
    if (rdma_bind_addr(RF_PTR(id), RF_PTR(addr)) != 0) {
        rf_throw_errno(env, "rdma_bind_addr failed", errno);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1listen)(JNIEnv *env, jobject self, jlong id, jint backlog)
{
    (void) self;
    if (rdma_listen(RF_PTR(id), backlog) != 0) {
        rf_throw_errno(env, "rdma_listen failed", errno);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1resolveAddr)(JNIEnv *env, jobject self, jlong id, jlong src,
                                             jlong dst, jint timeout)
{
    (void) self;
    if (rdma_resolve_addr(RF_PTR(id), src != 0 ? RF_PTR(src) : NULL, RF_PTR(dst), timeout) != 0) {
        rf_throw_errno(env, "rdma_resolve_addr failed", errno);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1resolveRoute)(JNIEnv *env, jobject self, jlong id, jint timeout)
{
    (void) self;
    if (rdma_resolve_route(RF_PTR(id), timeout) != 0) {
        rf_throw_errno(env, "rdma_resolve_route failed", errno);
    }
}

/*
 * Returns the event type (RdmaCmEvent.EventType ordinal, which follows librdmacm's numbering),
 * or -1 when nothing arrived within timeout milliseconds (negative timeout: wait without limit)
 * or the wait failed. Writes the listening id and the event's id to the two given addresses.
 */
JNIEXPORT jint JNICALL JNI_FN(_1getCmEvent)(JNIEnv *env, jobject self, jlong channel,
                                            jlong listenOut, jlong clientOut, jint timeout)
{
    struct rdma_event_channel *ch = RF_PTR(channel);
    struct rdma_cm_event *ev = NULL;
    int ready;
    int type;

    (void) env;
    (void) self;
    for (;;) {
        if (rdma_get_cm_event(ch, &ev) == 0) {
            break;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            rf_trace("rdma_get_cm_event: %s", strerror(errno));
            return -1;
        }
        ready = rf_wait_readable(ch->fd, timeout);
        if (ready <= 0) {
            return -1; /* timed out, interrupted or failed: the caller decides what next */
        }
        /* Readable: loop once more; another reader may have taken it, then we wait again.
         * The total wait may exceed timeout only in that unlikely race. */
    }
    type = (int) ev->event;
    *(jlong *) RF_PTR(listenOut) = RF_HANDLE(ev->listen_id);
    *(jlong *) RF_PTR(clientOut) = RF_HANDLE(ev->id);
    rf_trace("cm event %s (status %d) id %p listen %p", rdma_event_str(ev->event), ev->status,
             (void *) ev->id, (void *) ev->listen_id);
    rdma_ack_cm_event(ev);
    return type;
}

static void rf_conn_param(struct rdma_cm_id *id, struct rdma_conn_param *p, int retry, int rnr)
{
    struct ibv_device_attr da;

    memset(p, 0, sizeof(*p));
    p->retry_count = (uint8_t) (retry < 0 ? 0 : (retry > 7 ? 7 : retry));
    p->rnr_retry_count = (uint8_t) (rnr < 0 ? 0 : (rnr > 7 ? 7 : rnr));
    p->responder_resources = 1;
    p->initiator_depth = 1;
    if (id->verbs != NULL && ibv_query_device(id->verbs, &da) == 0) {
        p->responder_resources = (uint8_t) (da.max_qp_rd_atom > 16 ? 16 : da.max_qp_rd_atom);
        p->initiator_depth = (uint8_t) (da.max_qp_init_rd_atom > 16 ? 16 : da.max_qp_init_rd_atom);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1connect)(JNIEnv *env, jobject self, jlong idh, jint retry,
                                         jint rnr, jlong privdata, jbyte privlen)
{
    struct rdma_cm_id *id = RF_PTR(idh);
    struct rdma_conn_param p;

    (void) self;
    rf_conn_param(id, &p, retry, rnr);
    if (privdata != 0 && privlen > 0) {
        p.private_data = RF_PTR(privdata);
        p.private_data_len = (uint8_t) privlen;
    }
    if (rdma_connect(id, &p) != 0) {
        rf_throw_errno(env, "rdma_connect failed", errno);
    }
}

JNIEXPORT void JNICALL JNI_FN(_1accept)(JNIEnv *env, jobject self, jlong idh, jint retry, jint rnr)
{
    struct rdma_cm_id *id = RF_PTR(idh);
    struct rdma_conn_param p;

    (void) self;
    rf_conn_param(id, &p, retry, rnr);
    if (rdma_accept(id, &p) != 0) {
        rf_throw_errno(env, "rdma_accept failed", errno);
    }
}

/* Events are acknowledged inside _getCmEvent; this stays for DiSNI's call sequence. */
JNIEXPORT jint JNICALL JNI_FN(_1ackCmEvent)(JNIEnv *env, jobject self, jint event)
{
    (void) env;
    (void) self;
    (void) event;
    return 0;
}

JNIEXPORT jint JNICALL JNI_FN(_1disconnect)(JNIEnv *env, jobject self, jlong id)
{
    (void) env;
    (void) self;
    return rdma_disconnect(RF_PTR(id)) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyEventChannel)(JNIEnv *env, jobject self, jlong channel)
{
    (void) env;
    (void) self;
    rdma_destroy_event_channel(RF_PTR(channel));
    return 0;
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyCmId)(JNIEnv *env, jobject self, jlong id)
{
    (void) env;
    (void) self;
    return rdma_destroy_id(RF_PTR(id)) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyQP)(JNIEnv *env, jobject self, jlong id)
{
    (void) env;
    (void) self;
    rdma_destroy_qp(RF_PTR(id));
    return 0;
}

static jint rf_copy_addr(struct sockaddr *sa, jlong out)
{
    size_t n;

    if (sa == NULL || out == 0) {
        return -1;
    }
    n = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (n > RF_SOCKADDR_SIZE) {
        n = RF_SOCKADDR_SIZE;
    }
    memcpy(RF_PTR(out), sa, n);
    return 0;
}

JNIEXPORT jint JNICALL JNI_FN(_1getSrcAddr)(JNIEnv *env, jobject self, jlong id, jlong out)
{
    (void) env;
    (void) self;
    return rf_copy_addr(rdma_get_local_addr(RF_PTR(id)), out);
}

JNIEXPORT jint JNICALL JNI_FN(_1getDstAddr)(JNIEnv *env, jobject self, jlong id, jlong out)
{
    (void) env;
    (void) self;
    return rf_copy_addr(rdma_get_peer_addr(RF_PTR(id)), out);
}

JNIEXPORT jint JNICALL JNI_FN(_1destroyEp)(JNIEnv *env, jobject self, jlong id)
{
    (void) env;
    (void) self;
    rdma_destroy_ep(RF_PTR(id));
    return 0;
}

JNIEXPORT jlong JNICALL JNI_FN(_1getContext)(JNIEnv *env, jobject self, jlong idh)
{
    struct rdma_cm_id *id = RF_PTR(idh);

    (void) self;
    if (id == NULL) {
        rf_throw(env, "no RDMA CM id");
        return -1;
    }
    /*
     * -1 without an exception when the id has no device yet: DiSNI asks the listening id for
     * its context on every connect request, and an id bound to the wildcard address has none.
     * DiSNI then asks the new connection's own id, which does have one.
     */
    return id->verbs == NULL ? -1 : RF_HANDLE(id->verbs);
}
