package io.rdmaflux.hostile;

import io.rdmaflux.hostile.RawPeer.Frame;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A man in the middle for tests: a TCP relay that parses the frames between a sender and a
 * receiver and lets a {@link Rule} pass, drop, alter, reorder or forge them, as someone on the
 * path who does not know the key could. A side's close is passed on as a half-close, so the
 * peers' graceful shutdown works through the relay.
 */
public final class FrameRelay implements AutoCloseable {

    /** Which way a frame was going. */
    public enum Direction { TO_RECEIVER, TO_SENDER }

    /** Decides what becomes of each frame. Runs on the relay's thread for that direction. */
    @FunctionalInterface
    public interface Rule {
        void frame(Direction direction, Frame frame, Link link) throws IOException;
    }

    /** What a rule can do with a frame. */
    public interface Link {
        /** Sends a frame on in the direction the current one was going. */
        void forward(Frame frame) throws IOException;

        /** Sends a frame back to where the current one came from. */
        void reply(Frame frame) throws IOException;
    }

    /** Passes every frame unchanged. */
    public static final Rule PASS = (direction, frame, link) -> link.forward(frame);

    /**
     * Drops the sender's END and answers for the receiver with an END_ACK of the count END
     * announced, followed by 32 bytes where a sealed frame's tag goes (which it cannot compute).
     */
    public static final Rule FORGE_END_ACK = (direction, frame, link) -> {
        if (direction == Direction.TO_RECEIVER && frame.type() == FrameType.END.code()) {
            byte[] ack = new byte[8 + 32];
            System.arraycopy(frame.payload(), 0, ack, 0, 8);
            link.reply(new Frame(FrameType.END_ACK.code(), ack));
        } else {
            link.forward(frame);
        }
    };

    /** Removes the codec chain from the METADATA frame, keeping whatever follows the attributes (a tag). */
    public static final Rule STRIP_CODECS = (direction, frame, link) -> {
        if (direction == Direction.TO_RECEIVER && frame.type() == FrameType.METADATA.code()) {
            ByteBuffer b = frame.buffer();
            ByteBuffer stripped = StreamMetadata.decode(b).with(StreamMetadata.CODECS, null).encode();
            ByteBuffer p = ByteBuffer.allocate(stripped.remaining() + b.remaining()).put(stripped).put(b);
            link.forward(new Frame(frame.type(), p.array()));
        } else {
            link.forward(frame);
        }
    };

    /** Passes every frame but those of {@code type}. */
    public static Rule dropping(FrameType type) {
        return (direction, frame, link) -> {
            if (frame.type() != type.code()) {
                link.forward(frame);
            }
        };
    }

    /** Flips one bit of the {@code n}th DATA frame (from 1), at byte {@code offset}. */
    public static Rule flippingDataBit(int n, int offset) {
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        return (direction, frame, link) -> {
            if (frame.type() == FrameType.DATA.code() && seen.incrementAndGet() == n) {
                frame.payload()[offset] ^= 0x04;
            }
            link.forward(frame);
        };
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Rule rule;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    private FrameRelay(ServerSocket server, InetSocketAddress target, Rule rule) {
        this.server = server;
        this.target = target;
        this.rule = rule;
    }

    /** Listens on a free loopback port and relays each connection to {@code target}. */
    public static FrameRelay start(InetSocketAddress target, Rule rule) {
        try {
            ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            FrameRelay relay = new FrameRelay(s, target, rule);
            daemon("relay-accept", relay::acceptLoop);
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where senders connect. */
    public int port() {
        return server.getLocalPort();
    }

    /** Errors the rules threw, for tests to assert on. */
    public List<Throwable> failures() {
        return failures;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket sender = server.accept();
                Socket receiver = new Socket(target.getAddress(), target.getPort());
                sender.setTcpNoDelay(true);
                receiver.setTcpNoDelay(true);
                sockets.add(sender);
                sockets.add(receiver);
                Side s = new Side(sender);
                Side r = new Side(receiver);
                daemon("relay-to-receiver", () -> pump(Direction.TO_RECEIVER, s, r));
                daemon("relay-to-sender", () -> pump(Direction.TO_SENDER, r, s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Direction direction, Side from, Side to) {
        Link link = new Link() {
            @Override
            public void forward(Frame frame) throws IOException {
                to.write(frame);
            }

            @Override
            public void reply(Frame frame) throws IOException {
                from.write(frame);
            }
        };
        try {
            DataInputStream in = new DataInputStream(new BufferedInputStream(from.socket.getInputStream()));
            while (true) {
                Frame f;
                try {
                    f = RawPeer.readFrame(in);
                } catch (EOFException e) {
                    to.socket.shutdownOutput();
                    return;
                }
                rule.frame(direction, f, link);
            }
        } catch (IOException | RuntimeException e) {
            if (!(e instanceof IOException)) {
                failures.add(e);
            }
            from.closeQuietly();
            to.closeQuietly();
        }
    }

    /** One socket of a relayed connection; writes from both pumps are serialized. */
    private static final class Side {
        final Socket socket;
        final OutputStream out;

        Side(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        synchronized void write(Frame f) throws IOException {
            byte[] frame = ByteBuffer.allocate(8 + f.payload().length).put((byte) f.type()).put((byte) 0)
                    .putShort((short) 0).putInt(f.payload().length).put(f.payload()).array();
            out.write(frame);
            out.flush();
        }

        void closeQuietly() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        sockets.forEach(s -> {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        });
    }
}
