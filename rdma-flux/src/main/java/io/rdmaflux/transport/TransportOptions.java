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

    /** Smallest frame size: 4 KiB. */
    public static final int MIN_FRAME_SIZE = 4096;
    /** Largest frame size: 64 MiB. */
    public static final int MAX_FRAME_SIZE = 64 << 20;
    /** Largest receive ring, and most send slots. */
    public static final int MAX_SLOTS = 4096;

    public TransportOptions {
        if (frameSize < MIN_FRAME_SIZE || frameSize > MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("frame size must be between 4 KiB and 64 MiB, was " + frameSize);
        }
        if (receiveSlots < 2 || receiveSlots > MAX_SLOTS) {
            throw new IllegalArgumentException("receive slots must be between 2 and 4096, was " + receiveSlots);
        }
        if (sendSlots < 1 || sendSlots > MAX_SLOTS) {
            throw new IllegalArgumentException("send slots must be between 1 and 4096, was " + sendSlots);
        }
    }
}
