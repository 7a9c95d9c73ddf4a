import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The floor for a JVM sender in scripts/bench-tcp: no protocol, no framework. Reads FILE with
 * 1 MiB positional reads into one direct buffer, updates a CRC32C (as rdsend does) and writes
 * it to a TCP socket; or, with "sendfile", hands the file to the kernel (FileChannel.transferTo).
 *
 *   java BareSend PORT FILE crc|sendfile
 */
public class BareSend {
    public static void main(String[] args) throws Exception {
        try (FileChannel file = FileChannel.open(Path.of(args[1]), StandardOpenOption.READ);
             SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])))) {
            long size = file.size();
            long position = 0;
            if (args[2].equals("sendfile")) {
                while (position < size) {
                    position += file.transferTo(position, size - position, socket);
                }
                return;
            }
            CRC32C crc = new CRC32C();
            long[] next = {0};   // positional reads (pread), as rdsend's file source does
            long sent = BareLoop.copy(buffer -> {
                int n = file.read(buffer, next[0]);
                next[0] += Math.max(n, 0);
                return n;
            }, socket, crc);
            System.err.printf("sent %d bytes, crc32c %08x%n", sent, crc.getValue());
        }
    }
}
