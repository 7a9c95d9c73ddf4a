/*
 * Native half of io.rdmaflux.transport.rdma.Waker: waits on a channel's descriptor (completion
 * or connection-manager events) that another thread can cut short through an eventfd. The
 * transport's threads wait here rather than in a plain timed wait, so that close, dispose and
 * process exit need not wait for a timeout to run out (the JVM's exit waits up to 300 ms for a
 * thread inside a native call).
 */
#include "disni_common.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define JNI_WAKER(name) Java_io_rdmaflux_transport_rdma_Waker_##name

/* Bits of await0's result; must match Waker.java. */
#define RF_READY_FIRST  1
#define RF_READY_SECOND 2
#define RF_WOKEN        4

JNIEXPORT jint JNICALL JNI_WAKER(create0)(JNIEnv *env, jclass cls)
{
    int fd;

    (void) cls;
    fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) {
        rf_throw_errno(env, "eventfd failed", errno);
        return -1;
    }
    return fd;
}

JNIEXPORT void JNICALL JNI_WAKER(wake0)(JNIEnv *env, jclass cls, jint fd)
{
    uint64_t one = 1;

    (void) env;
    (void) cls;
    /* EAGAIN means the counter is full: a wake-up is pending already. */
    if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        rf_trace("eventfd write failed: errno %d", errno);
    }
}

/* DiSNI's Java objects carry fd 0 (it never asks); the native channels know the real one. */
JNIEXPORT jint JNICALL JNI_WAKER(completionChannelFd0)(JNIEnv *env, jclass cls, jlong channel)
{
    (void) env;
    (void) cls;
    return ((struct ibv_comp_channel *) RF_PTR(channel))->fd;
}

JNIEXPORT jint JNICALL JNI_WAKER(eventChannelFd0)(JNIEnv *env, jclass cls, jlong channel)
{
    (void) env;
    (void) cls;
    return ((struct rdma_event_channel *) RF_PTR(channel))->fd;
}

JNIEXPORT void JNICALL JNI_WAKER(close0)(JNIEnv *env, jclass cls, jint fd)
{
    (void) env;
    (void) cls;
    close(fd);
}

static int rf_ready(JNIEnv *env, const struct pollfd *p, const char *what)
{
    if (p->revents & (POLLERR | POLLNVAL)) {
        rf_throw_errno(env, what, (p->revents & POLLNVAL) ? EBADF : EIO);
        return -1;
    }
    return (p->revents & (POLLIN | POLLHUP)) != 0;
}

/*
 * Waits up to timeout ms (negative: without limit) until first or second (-1: none) is
 * readable or wake is signalled; clears the wake-up. Returns a mask of RF_* bits, 0 on timeout
 * or interruption by a signal.
 */
JNIEXPORT jint JNICALL JNI_WAKER(await0)(JNIEnv *env, jclass cls, jint wake, jint first, jint second,
                                         jint timeout)
{
    struct pollfd p[3];
    nfds_t n = 0;
    int result = 0;
    int r;
    uint64_t count;

    (void) cls;
    p[n].fd = wake;
    p[n].events = POLLIN;
    p[n++].revents = 0;
    p[n].fd = first;
    p[n].events = POLLIN;
    p[n++].revents = 0;
    if (second >= 0) {
        p[n].fd = second;
        p[n].events = POLLIN;
        p[n++].revents = 0;
    }
    r = poll(p, n, timeout < 0 ? -1 : timeout);
    if (r < 0) {
        if (errno == EINTR) {
            return 0;
        }
        rf_throw_errno(env, "waiting for an RDMA event failed", errno);
        return 0;
    }
    if (r == 0) {
        return 0;
    }
    if (p[0].revents & POLLIN) {
        /* Non-blocking: another reader cannot exist, but never block here anyway. */
        if (read(wake, &count, sizeof(count)) < 0 && errno != EAGAIN) {
            rf_trace("eventfd read failed: errno %d", errno);
        }
        result |= RF_WOKEN;
    }
    switch (rf_ready(env, &p[1], "waiting for an RDMA event failed")) {
    case -1: return 0;
    case 1: result |= RF_READY_FIRST; break;
    default: break;
    }
    if (n == 3) {
        switch (rf_ready(env, &p[2], "waiting for an RDMA event failed")) {
        case -1: return 0;
        case 1: result |= RF_READY_SECOND; break;
        default: break;
        }
    }
    return result;
}
