import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

/**
 * The floor for a JVM receiver in scripts/bench-tcp: accepts one connection on PORT, reads it
 * into one 1 MiB direct buffer, updates a CRC32C (as rdrecv does) and writes to stdout.
 *
 *   java BareRecv PORT > OUT
 */
public class BareRecv {
    public static void main(String[] args) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])));
             FileChannel out = new FileOutputStream(FileDescriptor.out).getChannel()) {
            try (SocketChannel socket = server.accept()) {
                CRC32C crc = new CRC32C();
                long total = BareLoop.copy(socket::read, out, crc);
                System.err.printf("received %d bytes, crc32c %08x%n", total, crc.getValue());
            }
        }
    }
}
