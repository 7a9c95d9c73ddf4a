/*
 * librdflux-fs.so: the tree sink's one file-system call that Java 17 lacks.
 *
 * JDK 17 sets a symbolic link's own times with lutimes(), which takes microseconds, so a
 * link's nanoseconds are lost. utimensat() with AT_SYMLINK_NOFOLLOW takes nanoseconds. The
 * Java side is io.rdmaflux.connector.tree.LinkTimes; without this library it falls back to
 * the JDK's call (microseconds). The tree sink sets its own files' and directories' times with
 * it too: by path, where the JDK opens each file for futimens. Needs only the C library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Returns 0, or the errno of utimensat (ENOMEM where the path could not be copied). */
JNIEXPORT __attribute__((visibility("default"))) jint JNICALL
Java_io_rdmaflux_connector_tree_LinkTimes_setTimes0(JNIEnv *env, jclass cls, jbyteArray path,
        jlong mtimeSec, jlong mtimeNanos, jlong atimeSec, jlong atimeNanos)
{
    struct timespec ts[2];
    jsize n;
    char *p;
    int rc;

    (void) cls;
    n = (*env)->GetArrayLength(env, path);
    p = malloc((size_t) n + 1);
    if (p == NULL) {
        return ENOMEM;
    }
    (*env)->GetByteArrayRegion(env, path, 0, n, (jbyte *) p);
    p[n] = '\0';
    ts[0].tv_sec = (time_t) atimeSec;
    ts[0].tv_nsec = (long) atimeNanos;
    ts[1].tv_sec = (time_t) mtimeSec;
    ts[1].tv_nsec = (long) mtimeNanos;
    rc = utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
    free(p);
    return rc;
}
