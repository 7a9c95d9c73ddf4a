package io.rdmaflux.channel;

import io.rdmaflux.transport.TransportOptions;
import java.time.Duration;

/**
 * Tunables of a channel. Immutable: every {@code withX} returns a copy. Every value is checked
 * when it is given (by a {@code withX} or the constructor), failing with an
 * {@link IllegalArgumentException} that names the option.
 *
 * @param frameSize        largest data frame payload in bytes (one receive slot), 4 KiB to
 *                         64 MiB; default 1 MiB
 * @param receiveSlots     receive ring size, i.e. credits granted to the sender, 2 to 4096;
 *                         default 16
 * @param sendSlots        data frames in flight on the sending side, 1 to 4096; default 16
 * @param connectTimeout   how long a sender keeps retrying to reach a receiver (0: it tries
 *                         once); default 10 s
 * @param handshakeTimeout longest time from connection to authenticated stream; default 10 s
 * @param heartbeat        a side that has sent nothing for this long sends a PING; default 2 s
 * @param idleTimeout      a side that has heard nothing for this long fails the stream, at
 *                         least twice the heartbeat; default 30 s
 */
public record ChannelOptions(int frameSize, int receiveSlots, int sendSlots, Duration connectTimeout,
                             Duration handshakeTimeout, Duration heartbeat, Duration idleTimeout) {

    /** The defaults described above. */
    public static ChannelOptions defaults() {
        return new ChannelOptions(1 << 20, 16, 16, Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(2), Duration.ofSeconds(30));
    }

    /**
     * Checks every value.
     *
     * @throws IllegalArgumentException naming the first option out of range (or null)
     */
    public ChannelOptions {
        Check.between(frameSize, TransportOptions.MIN_FRAME_SIZE, TransportOptions.MAX_FRAME_SIZE, "frameSize");
        Check.between(receiveSlots, 2, TransportOptions.MAX_SLOTS, "receiveSlots");
        Check.between(sendSlots, 1, TransportOptions.MAX_SLOTS, "sendSlots");
        Check.notNegative(connectTimeout, "connectTimeout");
        Check.positive(handshakeTimeout, "handshakeTimeout");
        Check.positive(heartbeat, "heartbeat");
        if (Check.positive(idleTimeout, "idleTimeout").compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("idleTimeout must be at least twice the heartbeat (" + heartbeat
                    + "), was " + idleTimeout);
        }
    }

    /** A copy with this frame size, in bytes (4 KiB to 64 MiB). */
    public ChannelOptions withFrameSize(int v) {
        return new ChannelOptions(v, receiveSlots, sendSlots, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    /** A copy with this many receive slots (2 to 4096). */
    public ChannelOptions withReceiveSlots(int v) {
        return new ChannelOptions(frameSize, v, sendSlots, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    /** A copy with this many send slots (1 to 4096). */
    public ChannelOptions withSendSlots(int v) {
        return new ChannelOptions(frameSize, receiveSlots, v, connectTimeout, handshakeTimeout, heartbeat, idleTimeout);
    }

    /** A copy with this connect timeout (0 or more). */
    public ChannelOptions withConnectTimeout(Duration v) {
        return new ChannelOptions(frameSize, receiveSlots, sendSlots, v, handshakeTimeout, heartbeat, idleTimeout);
    }

    /** A copy with this handshake timeout (positive). */
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
