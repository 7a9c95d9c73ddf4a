/*
 * rdma-flux: the project's own implementation of the native methods that
 * com.ibm.disni.verbs.impl.NativeDispatcher (DiSNI 2.x) declares.
 *
 * Object handles crossing into Java are plain pointers cast to jlong. User-space pointers on
 * x86-64 are below 2^47, so they are always positive, which is what DiSNI's Java side checks.
 */
#ifndef RDMAFLUX_DISNI_COMMON_H
#define RDMAFLUX_DISNI_COMMON_H

#include <jni.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* Version the Java side checks in NativeDispatcher's constructor. */
#define RF_JVERBS_VERSION 32

/*
 * Layouts DiSNI's Java code writes into direct buffers for post-send and post-receive. They are
 * DiSNI's own, not libibverbs' (struct ibv_send_wr grew after DiSNI fixed these), so the native
 * side reads them field by field and builds real work requests.
 */
#define RF_SEND_WR_SIZE        72
#define RF_SEND_WR_ID          0
#define RF_SEND_WR_NEXT        8
#define RF_SEND_WR_SGL         16
#define RF_SEND_WR_NUM_SGE     24
#define RF_SEND_WR_OPCODE      28
#define RF_SEND_WR_FLAGS       32
#define RF_SEND_WR_IMM         36
#define RF_SEND_WR_REMOTE_ADDR 40
#define RF_SEND_WR_RKEY        48

#define RF_RECV_WR_SIZE        32
#define RF_RECV_WR_ID          0
#define RF_RECV_WR_NEXT        8
#define RF_RECV_WR_SGL         16
#define RF_RECV_WR_NUM_SGE     24

/* DiSNI writes scatter/gather entries exactly as struct ibv_sge: addr, length, lkey. */
#define RF_SGE_SIZE            16

/* Room DiSNI reserves for a socket address (it sizes for sockaddr_in6). */
#define RF_SOCKADDR_SIZE       28

#define RF_PTR(x) ((void *) (uintptr_t) (x))
#define RF_HANDLE(p) ((jlong) (uintptr_t) (p))

/* Throws java.io.IOException "<what>: <strerror(err)> (errno <err>)". */
void rf_throw_errno(JNIEnv *env, const char *what, int err);

/* Throws java.io.IOException with a ready message. */
void rf_throw(JNIEnv *env, const char *message);

/* Optional trace to stderr, switched on by RDMAFLUX_NATIVE_TRACE=1. */
void rf_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Puts a file descriptor into non-blocking mode; returns 0 or an errno value. */
int rf_set_nonblocking(int fd);

/*
 * Waits up to timeout_ms (negative: without limit) for fd to become readable.
 * Returns 1 when readable, 0 on timeout or interruption, -1 with errno set on error.
 */
int rf_wait_readable(int fd, int timeout_ms);

#endif
