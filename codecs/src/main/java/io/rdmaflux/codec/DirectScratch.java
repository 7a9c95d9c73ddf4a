package io.rdmaflux.codec;

import java.nio.ByteBuffer;

/**
 * Per-thread direct buffers for native code and intrinsics that are only fast on direct
 * memory (zstd-jni's direct API; the JDK's AES-GCM, which is some 40 times slower when one side
 * is a heap buffer). Heap bytes are copied in once, which costs far less than that.
 */
final class DirectScratch {

    private static final ThreadLocal<ByteBuffer[]> SCRATCH = ThreadLocal.withInitial(() -> new ByteBuffer[2]);

    private DirectScratch() {
    }

    /** {@code b} itself if direct, else a copy of its remaining bytes in this thread's scratch buffer {@code slot}. */
    static ByteBuffer direct(ByteBuffer b, int slot) {
        if (b.isDirect()) {
            return b;
        }
        ByteBuffer s = get(slot, b.remaining());
        s.put(b.duplicate()).flip();
        return s;
    }

    /** This thread's cleared scratch buffer {@code slot} (0 or 1) with limit {@code size}. */
    static ByteBuffer get(int slot, int size) {
        ByteBuffer[] holder = SCRATCH.get();
        ByteBuffer s = holder[slot];
        if (s == null || s.capacity() < size) {
            s = ByteBuffer.allocateDirect(Math.max(size, 64 * 1024));
            holder[slot] = s;
        }
        s.clear().limit(size);
        return s;
    }
}
