package io.rdmaflux.leak;

import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty reports a leaked buffer. Netty notices a leak only when
 * the buffer has been garbage-collected and a later buffer is tracked, so this collects garbage
 * and allocates a few buffers before it asks {@link FailingLeakDetector}. Registered for every
 * test class through {@code META-INF/services} and JUnit's extension auto-detection (both set
 * in the build's test argLine).
 */
public final class NettyLeakCheck implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!"paranoid".equalsIgnoreCase(System.getProperty("io.netty.leakDetection.level"))) {
            return;
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
            // Tracking a new buffer is what makes Netty look at the collected ones.
            ByteBufAllocator.DEFAULT.directBuffer(1).release();
            ByteBufAllocator.DEFAULT.heapBuffer(1).release();
        }
        if (!FailingLeakDetector.installed()) {
            throw new AssertionError("leak detection is paranoid but Netty does not use FailingLeakDetector:"
                    + " set -Dio.netty.customResourceLeakDetector=" + FailingLeakDetector.class.getName());
        }
        java.util.List<String> leaks = FailingLeakDetector.drain();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer(s) leaked by the time "
                    + context.getDisplayName() + " ended (or before):\n" + String.join("\n", leaks));
        }
    }
}
