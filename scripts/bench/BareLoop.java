import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * The per-byte work both bare programs do, as rdsend and rdrecv do it: read into one 1 MiB
 * direct buffer, update a CRC32C, write everything out. One loop, so that the two floors in
 * scripts/bench-tcp differ only in where the bytes come from.
 */
final class BareLoop {

    /** One read into the buffer: bytes read, or -1 (or 0 for a file) at the end. */
    interface Read {
        int into(ByteBuffer buffer) throws IOException;
    }

    private BareLoop() {
    }

    /** Copies until the end of input; returns the byte count. */
    static long copy(Read in, WritableByteChannel out, CRC32C crc) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        long total = 0;
        while (true) {
            buffer.clear();
            int n = in.into(buffer);
            if (n <= 0) {
                return total;
            }
            total += n;
            buffer.flip();
            crc.update(buffer.duplicate());
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        }
    }
}
