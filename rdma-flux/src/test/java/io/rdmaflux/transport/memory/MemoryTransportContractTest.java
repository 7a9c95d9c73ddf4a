package io.rdmaflux.transport.memory;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportContract;
import java.net.InetSocketAddress;

/** The transport contract over the in-memory transport, which the engine tests stand on. */
class MemoryTransportContractTest extends TransportContract {

    private MemoryTransport memory;

    @Override
    protected Transport newTransport() {
        memory = new MemoryTransport();
        return memory;
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    @Override
    protected String host() {
        return "127.0.0.1";
    }

    @Override
    protected int receiveSlotsInUse() {
        return memory.slotsInUse();
    }
}
