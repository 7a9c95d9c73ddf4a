package io.rdmaflux.transport.tcp;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportProvider;
import java.time.Duration;

/** The TCP transport as {@code tcp}: usable everywhere, the last one {@code auto} tries. */
public final class TcpTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public Transport transport() {
        return new TcpTransport();
    }

    @Override
    public int autoOrder() {
        return 0;
    }

    @Override
    public String status() {
        return "available" + (epoll() ? " (native epoll)" : " (Java NIO)");
    }

    /** Stops the event loops every TCP transport shares; later use makes new ones. */
    @Override
    public void shutdown(Duration timeout) {
        new TcpTransport().shutdown(timeout);
    }

    private static boolean epoll() {
        try {
            return io.netty.channel.epoll.Epoll.isAvailable();
        } catch (Throwable t) {
            return false;
        }
    }
}
