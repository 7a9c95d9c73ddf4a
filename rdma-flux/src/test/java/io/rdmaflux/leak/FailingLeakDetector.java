package io.rdmaflux.leak;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector for the tests, named by {@code -Dio.netty.customResourceLeakDetector}
 * in the build's test argLine: it still logs each leak, and also keeps it, so that
 * {@link NettyLeakCheck} can fail the test class that left it. A log line alone fails nothing.
 */
public final class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        installed = true;
    }

    /**
     * The signature Netty's factory looks for first; without it the factory logs a SEVERE
     * "could not load" before it finds the other one. {@code maxActive} is unused, as in Netty.
     */
    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    /** Whether Netty made one of these (for its buffers, once they are first used). */
    static boolean installed() {
        return installed;
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + " leaked; last accesses:" + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " leaked (no access records)");
        super.reportUntracedLeak(resourceType);
    }

    /** The leaks reported since the last call, which forgets them. */
    static List<String> drain() {
        List<String> out = List.copyOf(LEAKS);
        LEAKS.removeAll(out);
        return out;
    }
}
