/*
 * Lets DiSNI's NativeDispatcher find this library without a library path.
 *
 * NativeDispatcher's static initialiser calls System.loadLibrary("disni"), which searches only
 * the JDK's and java.library.path's directories, as read at JVM start. RdmaNative loads this
 * file first with System.load (from the jar's copy or a named file) and then calls makeGlobal0,
 * which adds the already loaded library to the process's global symbol scope. There the JDK
 * finds JNI_OnLoad_disni, the JNI specification's mark of a library linked into the VM
 * ("statically linked libraries", JNI 1.8), and loadLibrary("disni") binds to it instead of
 * searching for a file. Only the JNI entry points are visible (the Makefile hides the rest).
 */
#define _GNU_SOURCE
#include "disni_common.h"

#include <dlfcn.h>
#include <stdio.h>

JNIEXPORT jint JNICALL JNI_OnLoad_disni(JavaVM *vm, void *reserved)
{
    (void) vm;
    (void) reserved;
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL Java_io_rdmaflux_transport_rdma_RdmaNative_makeGlobal0(JNIEnv *env, jclass cls)
{
    Dl_info info;
    void *self;
    char msg[512];

    (void) cls;
    if (dladdr((void *) &JNI_OnLoad_disni, &info) == 0 || info.dli_fname == NULL) {
        rf_throw(env, "cannot find libdisni's own file (dladdr failed)");
        return;
    }
    /* RTLD_NOLOAD: only change the flags of the copy the JVM loaded; never load a second one. */
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    if (self == NULL) {
        snprintf(msg, sizeof(msg), "cannot make libdisni visible to System.loadLibrary: %s", dlerror());
        rf_throw(env, msg);
    }
    /* The handle is kept: the library stays loaded for the life of the process anyway. */
}
