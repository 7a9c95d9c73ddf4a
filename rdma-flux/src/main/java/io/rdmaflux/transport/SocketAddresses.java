package io.rdmaflux.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** Socket addresses as messages show them: {@code host:port}, an IPv6 host in brackets. */
public final class SocketAddresses {

    private SocketAddresses() {
    }

    /**
     * {@code 10.0.0.1:7691}, {@code [fe80::1]:7691}; the wildcard address as {@code 0.0.0.0},
     * the name users give it (a socket bound to it listens on IPv6's wildcard too, and Java
     * reports that one as {@code 0:0:0:0:0:0:0:0}).
     */
    public static String format(SocketAddress address) {
        if (!(address instanceof InetSocketAddress a)) {
            return String.valueOf(address);
        }
        InetAddress ip = a.getAddress();
        String host = ip == null ? a.getHostString() : ip.isAnyLocalAddress() ? "0.0.0.0" : ip.getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
