package io.rdmaflux.transport.rdma;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportProvider;
import java.time.Duration;

/**
 * The RDMA transport as {@code rdma}, the first one {@code auto} tries. {@link RdmaTransport}
 * is loaded by name, on first use, so that this provider loads (and the channel works over TCP)
 * where DiSNI or the native library cannot; what went wrong becomes the reason it is unusable.
 */
public final class RdmaTransportProvider implements TransportProvider {

    private static final String RDMA_CLASS = "io.rdmaflux.transport.rdma.RdmaTransport";

    /** Once per process, as the native library is loaded once. */
    private static volatile Transport rdma;
    private static volatile String problem;

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public String unavailableReason() {
        load();
        return problem;
    }

    @Override
    public Transport transport() {
        load();
        if (rdma == null) {
            throw new IllegalStateException("RDMA transport unavailable: " + problem);
        }
        return rdma;
    }

    @Override
    public int autoOrder() {
        return 100;
    }

    /** Closes what RDMA connections and listeners are still open; nothing when RDMA was never loaded. */
    @Override
    public void shutdown(Duration timeout) {
        Transport r = rdma;
        if (r != null) {
            r.shutdown(timeout);
        }
    }

    private static synchronized void load() {
        if (rdma != null || problem != null) {
            return;
        }
        try {
            Transport t = (Transport) Class.forName(RDMA_CLASS).getDeclaredConstructor().newInstance();
            String why = t.unavailableReason();
            if (why == null) {
                rdma = t;
            } else {
                problem = why;
            }
        } catch (ClassNotFoundException e) {
            problem = "this build has no RDMA transport";
        } catch (Throwable e) {
            // Whatever is thrown, the answer is kept: loading is not retried on every stream.
            problem = "the RDMA transport failed to load: " + e;
        }
    }
}
