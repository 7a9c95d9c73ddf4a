package io.rdmaflux.transport;

import java.time.Duration;

/**
 * A transport the channel can find by name: the one class a new transport adds beside its
 * {@link Transport}, listed in {@code META-INF/services/io.rdmaflux.transport.TransportProvider}.
 * The channel's builders select it with {@link TransportKind#parse} (the tools' {@code --transport},
 * a pipeline's {@code transport:}), and {@code rdflux doctor} reports it. Built in: {@code tcp}
 * and {@code rdma}; the engine's tests add an in-memory one.
 *
 * <p>Providers are made once per process through {@link java.util.ServiceLoader} (a public
 * constructor without arguments) and must be cheap to make: anything that loads native code or
 * probes devices belongs in {@link #unavailableReason()}, which the channel asks only when the
 * transport may be used.
 */
public interface TransportProvider {

    /** The name that selects it: lower-case letters, digits and '-', not {@code auto} ("tcp", "rdma"). */
    String name();

    /** Null when the transport can be used here, otherwise one line saying why not; may be slow the first time. */
    String unavailableReason();

    /** The transport; asked only when {@link #unavailableReason()} is null. */
    Transport transport();

    /**
     * Where {@link TransportKind#AUTO} tries this transport: usable transports with an order of
     * zero or more, highest first (rdma 100, tcp 0, so RDMA is preferred and TCP is the
     * fallback). Negative, the default: only when named.
     */
    default int autoOrder() {
        return -1;
    }

    /** One line for {@code rdflux doctor}: "available", with detail where it helps, or "unavailable: why". */
    default String status() {
        String why = unavailableReason();
        return why == null ? "available" : "unavailable: " + why;
    }

    /**
     * Stops the threads and closes the connections this transport keeps, if it was used, waiting
     * at most {@code timeout}: see {@code Transports.shutdown}. The default has nothing to stop.
     */
    default void shutdown(Duration timeout) {
    }
}
