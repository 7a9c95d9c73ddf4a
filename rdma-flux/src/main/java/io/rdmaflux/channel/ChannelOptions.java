package io.rdmaflux.channel;

import io.rdmaflux.transport.TransportOptions;
import java.time.Duration;

/**
 * Tunables of a channel. Immutable: every {@code withX} returns a copy.
 *
 * @param frameSize        largest data frame payload in bytes (one receive slot); default 1 MiB
 * @param receiveSlots     receive ring size, i.e. credits granted to the sender; default 16
 * @param sendSlots        data frames in flight on the sending side; default 16
 * @param connectTimeout   how long a sender keeps retrying to reach a receiver; default 10 s
 * @param handshakeTimeout longest time from connection to authenticated stream; default 10 s
 * @param heartbeat        a side that has sent nothing for this long sends a PING; default 2 s
 * @param idleTimeout      a side that has heard nothing for this long fails the stream; default 30 s
 */
public record ChannelOptions(int frameSize, int receiveSlots, int sendSlots, Duration connectTimeout,
                             Duration handshakeTimeout, Duration heartbeat, Duration idleTimeout) {

    /** The defaults described above. */
    public static ChannelOptions defaults() {
        return new ChannelOptions(1 << 20, 16, 16, Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(2), Duration.ofSeconds(30));
    }

    public ChannelOptions {
        // Validates the sizes through the transport's own rules.
        new TransportOptions(frameSize, receiveSlots, sendSlots, connectTimeout);
        if (heartbeat.isNegative() || heartbeat.isZero() || idleTimeout.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("idle timeout must be at least twice the heartbeat");
        }
    }

    public ChannelOptions withFrameSize(int v) {
        return new ChannelOptions(v, receiveSlots, sendSlots, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    public ChannelOptions withReceiveSlots(int v) {
        return new ChannelOptions(frameSize, v, sendSlots, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    public ChannelOptions withSendSlots(int v) {
        return new ChannelOptions(frameSize, receiveSlots, v, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    public ChannelOptions withConnectTimeout(Duration v) {
        return new ChannelOptions(frameSize, receiveSlots, sendSlots, v, handshakeTimeout, heartbeat, idleTimeout);
    }

    public ChannelOptions withHandshakeTimeout(Duration v) {
        return new ChannelOptions(frameSize, receiveSlots, sendSlots, connectTimeout, v, heartbeat, idleTimeout);
    }

    /** Sets the heartbeat and the idle timeout together (the latter at least twice the former). */
    public ChannelOptions withLiveness(Duration heartbeat, Duration idleTimeout) {
        return new ChannelOptions(frameSize, receiveSlots, sendSlots, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    /** What the transport needs of these options. */
    public TransportOptions transportOptions() {
        return new TransportOptions(frameSize, receiveSlots, sendSlots, connectTimeout);
    }
}
