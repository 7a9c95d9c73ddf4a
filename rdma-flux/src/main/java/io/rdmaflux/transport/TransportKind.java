package io.rdmaflux.transport;

/** Which transport carries a channel. */
public enum TransportKind {
    /** RDMA when a usable device and the native library are present, otherwise TCP. */
    AUTO,
    /** RDMA verbs (InfiniBand, RoCE) through DiSNI; fails clearly when unusable. */
    RDMA,
    /** TCP sockets through reactor-netty. */
    TCP;

    /** Parses a user's choice, case-insensitively. */
    public static TransportKind parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown transport '" + s + "' (expected auto, rdma or tcp)");
        }
    }
}
