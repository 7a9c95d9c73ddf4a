package io.rdmaflux.transport;

import java.time.Duration;

/**
 * Sizes and timeouts a transport needs to set up a connection.
 *
 * @param frameSize      largest data payload, in bytes: the size of each receive slot
 * @param receiveSlots   receive ring size: the credits the peer gets
 * @param sendSlots      data frames in flight on this side at once
 * @param connectTimeout longest wait for a connection to be established
 */
public record TransportOptions(int frameSize, int receiveSlots, int sendSlots, Duration connectTimeout) {

    public TransportOptions {
        if (frameSize < 4096 || frameSize > (64 << 20)) {
            throw new IllegalArgumentException("frame size must be between 4 KiB and 64 MiB, was " + frameSize);
        }
        if (receiveSlots < 2 || receiveSlots > 4096) {
            throw new IllegalArgumentException("receive slots must be between 2 and 4096, was " + receiveSlots);
        }
        if (sendSlots < 1 || sendSlots > 4096) {
            throw new IllegalArgumentException("send slots must be between 1 and 4096, was " + sendSlots);
        }
    }
}
