package io.rdmaflux.transport.memory;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportProvider;

/** A transport that is never usable here, preferred by {@code auto} over every built-in: for selection tests. */
public final class UnpluggedTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "unplugged";
    }

    @Override
    public String unavailableReason() {
        return "no cable in this test";
    }

    @Override
    public Transport transport() {
        throw new AssertionError("an unusable transport was asked for");
    }

    @Override
    public int autoOrder() {
        return 1000;
    }
}
