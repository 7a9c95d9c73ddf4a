package io.rdmaflux.channel;

import java.net.InetSocketAddress;
import java.util.List;
import reactor.core.Disposable;

/** A bound {@link FluxReceiver}: accepts streams until disposed. */
public interface ReceiverServer extends Disposable {

    /** The address bound (with the actual port when 0 was asked for). */
    InetSocketAddress address();

    /** The names of the transports listening ("rdma", "tcp"), in order of preference. */
    List<String> transports();
}
