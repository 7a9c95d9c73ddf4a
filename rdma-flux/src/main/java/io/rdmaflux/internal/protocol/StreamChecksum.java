package io.rdmaflux.internal.protocol;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Running byte count and CRC32C of a stream's payload, as carried in the END frame.
 * CRC32C is hardware-accelerated in the JDK, so it costs little next to the copy it shadows;
 * it catches accidental corruption and truncation, while {@code --encrypt} (AES-GCM) is the
 * defence against deliberate tampering.
 */
public final class StreamChecksum {

    private final CRC32C crc = new CRC32C();
    private long bytes;

    /** Adds the bytes between position and limit, without moving the buffer's position. */
    public void update(ByteBuffer data) {
        bytes += data.remaining();
        crc.update(data.duplicate());
    }

    public long bytes() {
        return bytes;
    }

    public int crc() {
        return (int) crc.getValue();
    }
}
