package io.rdmaflux.hostile;

import io.rdmaflux.internal.protocol.Authenticator;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.ProtocolVersion;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A peer driven by hand over a plain TCP socket, for tests that play the attacker or a foreign
 * program: it writes whatever bytes or frames it is told and reads frames back. Every read waits
 * at most {@link #TIMEOUT}.
 */
public final class RawPeer implements AutoCloseable {

    /** Longest wait for a connection or a read. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** A frame as it crossed the wire: its type code and its payload (a sealed one keeps its tag). */
    public record Frame(int type, byte[] payload) {

        public FrameType frameType() {
            return FrameType.of(type);
        }

        public ByteBuffer buffer() {
            return ByteBuffer.wrap(payload);
        }

        @Override
        public String toString() {
            return (type > 0 && type < 10 ? FrameType.of(type).name() : "type " + type) + "[" + payload.length + " bytes]";
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code address}. */
    public static RawPeer connect(InetSocketAddress address) {
        try {
            Socket s = new Socket();
            s.connect(address, (int) TIMEOUT.toMillis());
            return new RawPeer(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Wraps a socket accepted by a test's own server (a fake receiver, say). */
    public static RawPeer of(Socket accepted) {
        try {
            return new RawPeer(accepted);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A valid HELLO payload of this build, with another version number if asked. */
    public static ByteBuffer hello(Hello.Role role, int version) {
        ByteBuffer b = new Hello(role, Authenticator.newNonce(), 1 << 20, 16).encode();
        b.putShort(4, (short) version);
        return b;
    }

    /** Writes raw bytes. */
    public RawPeer write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a frame header announcing {@code length} payload bytes, and nothing else. */
    public RawPeer header(int type, int length) {
        return write(ByteBuffer.allocate(ProtocolVersion.HEADER_BYTES).put((byte) type).put((byte) 0)
                .putShort((short) 0).putInt(length).array());
    }

    /** Writes a whole frame. */
    public RawPeer frame(FrameType type, ByteBuffer payload) {
        return frame(type.code(), payload);
    }

    public RawPeer frame(int type, ByteBuffer payload) {
        byte[] p = new byte[payload.remaining()];
        payload.duplicate().get(p);
        return header(type, p.length).write(p);
    }

    /** The next frame, or null when the other side closed the connection. */
    public Frame read() {
        try {
            return readFrame(in);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no frame within " + TIMEOUT, e);
        } catch (EOFException | SocketException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Frames until the other side closes; fails if it has not closed within {@link #TIMEOUT}. */
    public List<Frame> readUntilClosed() {
        List<Frame> frames = new ArrayList<>();
        for (Frame f; (f = read()) != null; ) {
            frames.add(f);
        }
        return frames;
    }

    /** Reads one frame: an 8-byte header, then its payload. */
    static Frame readFrame(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        in.readUnsignedByte();
        in.readUnsignedShort();
        int length = in.readInt();
        if (length < 0 || length > (64 << 20)) {
            throw new IOException("frame of " + Integer.toUnsignedString(length) + " bytes");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(type, payload);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
