package io.rdmaflux.transport.memory;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportProvider;

/**
 * The in-memory transport as {@code memory}, for the engine's tests: one {@link MemoryTransport}
 * per process, so that a sender and a receiver that select it by name meet. Never chosen by
 * {@code auto}. Listed only on rdma-flux's own test class path ({@code src/test/transport-providers}).
 */
public final class MemoryTransportProvider implements TransportProvider {

    private static final MemoryTransport SHARED = new MemoryTransport();

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public Transport transport() {
        return SHARED;
    }

    /** The transport every selection by name gives, for its leak counters. */
    public static MemoryTransport shared() {
        return SHARED;
    }
}
