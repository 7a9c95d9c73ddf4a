package io.rdmaflux.transport;

import java.util.Locale;
import java.util.Objects;

/**
 * Which transport carries a channel: {@link #AUTO}, or a transport by the name its
 * {@link TransportProvider} gives ({@link #RDMA}, {@link #TCP}, or one a jar adds). A value, not
 * an enum, so that a new transport needs no change here.
 */
public final class TransportKind {

    /** RDMA when a usable device and the native library are present, otherwise TCP: every usable transport with an {@linkplain TransportProvider#autoOrder() auto order}, best first. */
    public static final TransportKind AUTO = new TransportKind("auto");
    /** RDMA verbs (InfiniBand, RoCE) through DiSNI; fails clearly when unusable. */
    public static final TransportKind RDMA = new TransportKind("rdma");
    /** TCP sockets through reactor-netty. */
    public static final TransportKind TCP = new TransportKind("tcp");

    private final String name;

    private TransportKind(String name) {
        this.name = name;
    }

    /**
     * The kind named {@code name} (lower case), whether or not a provider of that name is found
     * here: selecting it fails later, with one line, when none is.
     *
     * @throws IllegalArgumentException when the name is not lower-case letters, digits and '-'
     */
    public static TransportKind of(String name) {
        Objects.requireNonNull(name, "name");
        return switch (name) {
            case "auto" -> AUTO;
            case "rdma" -> RDMA;
            case "tcp" -> TCP;
            default -> {
                if (!TransportProviders.NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("not a transport name: '" + name + "'");
                }
                yield new TransportKind(name);
            }
        };
    }

    /**
     * Parses a user's choice, case-insensitively: {@code auto} or the name of a transport found
     * here ({@link TransportProviders}).
     *
     * @throws IllegalArgumentException "unknown transport 'x' (expected auto, rdma or tcp)" otherwise
     */
    public static TransportKind parse(String s) {
        String name = s.trim().toLowerCase(Locale.ROOT);
        if (!name.equals("auto") && TransportProviders.find(name).isEmpty()) {
            throw new IllegalArgumentException("unknown transport '" + s + "' (expected "
                    + TransportProviders.choicesText() + ")");
        }
        return of(name);
    }

    /** The name, lower case: "auto", "rdma", "tcp". */
    public String name() {
        return name;
    }

    /** Whether this is {@link #AUTO}. */
    public boolean isAuto() {
        return this == AUTO;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransportKind k && k.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
