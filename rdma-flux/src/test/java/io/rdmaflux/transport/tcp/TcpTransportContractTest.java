package io.rdmaflux.transport.tcp;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportContract;
import java.net.InetSocketAddress;

/** The transport contract over TCP, on real loopback sockets. */
class TcpTransportContractTest extends TransportContract {

    @Override
    protected Transport newTransport() {
        return new TcpTransport();
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
        return connections().stream().mapToInt(c -> ((TcpFrameConnection) c).slotsInUse()).sum();
    }
}
