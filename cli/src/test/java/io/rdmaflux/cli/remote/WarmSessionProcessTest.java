package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm agent's session seen as a process ({@link WarmSessionProcess}) over a real Unix socket,
 * the daemon's end played by the test with the frames WarmSession writes: output and error
 * output apart and in order, the exit status, a session cut without one (255, as ssh), the
 * input and its end, and destroy.
 */
class WarmSessionProcessTest {

    @TempDir
    Path dir;

    private ServerSocketChannel server;
    private SocketChannel daemon;
    private WarmSessionProcess process;

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("s")));
        SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(dir.resolve("s")));
        daemon = server.accept();
        process = new WarmSessionProcess(client, "test");
    }

    @AfterEach
    void close() throws IOException {
        process.destroy();
        daemon.close();
        server.close();
    }

    private void frame(char type, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(5 + bytes.length).put((byte) type).putInt(bytes.length).put(bytes).flip();
        while (b.hasRemaining()) {
            daemon.write(b);
        }
    }

    private static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void outputErrorOutputAndStatusComeApart() throws Exception {
        frame('O', "{\"type\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8));
        frame('E', "a warning\n".getBytes(StandardCharsets.UTF_8));
        frame('O', "second line\n".getBytes(StandardCharsets.UTF_8));
        frame('X', ByteBuffer.allocate(4).putInt(75).array());
        daemon.close();
        assertThat(read(process.getInputStream())).isEqualTo("{\"type\":\"hello\"}\nsecond line\n");
        assertThat(read(process.getErrorStream())).isEqualTo("a warning\n");
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(75);
        assertThat(process.isAlive()).isFalse();
        assertThat(process.onExit().get(30, TimeUnit.SECONDS)).isSameAs(process);
    }

    @Test
    void aSessionCutWithoutItsStatusExits255() throws Exception {
        frame('O', "partial".getBytes(StandardCharsets.UTF_8));
        assertThat(process.isAlive()).isTrue();
        assertThatThrownBy(process::exitValue).isInstanceOf(IllegalThreadStateException.class);
        daemon.close();
        assertThat(process.waitFor()).isEqualTo(WarmSessionProcess.LOST);
        assertThat(read(process.getInputStream())).isEqualTo("partial");
    }

    @Test
    void aFrameLongerThanTheWarmAgentWritesEndsTheSession() throws Exception {
        ByteBuffer head = ByteBuffer.allocate(5).put((byte) 'O').putInt(1 << 20).flip();
        daemon.write(head);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(WarmSessionProcess.LOST);
    }

    @Test
    void theInputArrivesInOrderAndItsEndIsAShutdownNotAClose() throws Exception {
        OutputStream in = process.getOutputStream();
        in.write("job\n".getBytes(StandardCharsets.UTF_8));
        in.write("connect\n".getBytes(StandardCharsets.UTF_8));
        in.close();
        assertThat(read(Channels.newInputStream(daemon))).isEqualTo("job\nconnect\n");
        // Our side still reads: the session's last frames come after its input ended.
        frame('X', ByteBuffer.allocate(4).putInt(0).array());
        daemon.close();
        assertThat(process.waitFor()).isZero();
    }

    @Test
    void destroyEndsTheSession() throws Exception {
        process.destroy();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(WarmSessionProcess.LOST);
        assertThat(Channels.newInputStream(daemon).read()).as("the daemon sees the end").isEqualTo(-1);
        assertThatThrownBy(process::pid).isInstanceOf(UnsupportedOperationException.class);
    }
}
