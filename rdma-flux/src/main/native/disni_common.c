/* Helpers shared by the connection-manager and verbs halves of the binding. */
#define _GNU_SOURCE
#include "disni_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rf_throw(JNIEnv *env, const char *message)
{
    jclass cls;

    if ((*env)->ExceptionCheck(env)) {
        return; /* keep the first failure */
    }
    cls = (*env)->FindClass(env, "java/io/IOException");
    if (cls != NULL) {
        (*env)->ThrowNew(env, cls, message);
    }
}

void rf_throw_errno(JNIEnv *env, const char *what, int err)
{
    char msg[320];
    char reason[160];

    /* The GNU strerror_r returns the text; it may not use the buffer at all. */
    const char *text = strerror_r(err, reason, sizeof(reason));
    snprintf(msg, sizeof(msg), "%s: %s (errno %d)", what, text, err);
    rf_throw(env, msg);
}

void rf_trace(const char *fmt, ...)
{
    static int enabled = -1;
    va_list ap;

    if (enabled < 0) {
        const char *v = getenv("RDMAFLUX_NATIVE_TRACE");
        enabled = (v != NULL && v[0] != '\0' && strcmp(v, "0") != 0) ? 1 : 0;
    }
    if (!enabled) {
        return;
    }
    va_start(ap, fmt);
    fputs("[libdisni] ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int rf_set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0) {
        return errno;
    }
    if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        return errno;
    }
    return 0;
}

int rf_wait_readable(int fd, int timeout_ms)
{
    struct pollfd p;
    int n;

    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    n = poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
    if (n < 0) {
        return errno == EINTR ? 0 : -1;
    }
    if (n == 0) {
        return 0;
    }
    if (p.revents & (POLLERR | POLLNVAL)) {
        errno = (p.revents & POLLNVAL) ? EBADF : EIO;
        return -1;
    }
    return 1;
}
