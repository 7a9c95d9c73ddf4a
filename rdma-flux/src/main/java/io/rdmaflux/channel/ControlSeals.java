package io.rdmaflux.channel;

import io.rdmaflux.internal.protocol.Authenticator;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.FrameSeal;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.internal.protocol.SessionKeys;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.transport.FrameConnection;
import java.nio.ByteBuffer;

/**
 * What one stream's handshake establishes, and the seals it puts on control frames: both HELLOs,
 * the keys derived from them (or from NEXT nonces on a kept connection), and the seal of each
 * direction. Kept apart from {@link SessionBase} because it changes with the protocol's
 * cryptography, not with a stream's lifecycle.
 *
 * <p>Sealing counts frames, so every frame this side sends goes through {@link #send} under one
 * lock: the seal's counter and the transport's order must agree.
 */
final class ControlSeals {

    private final Authenticator authenticator;
    private final Hello.Role role;
    private final Hello.Role peer;
    private final FrameConnection connection;
    /** This side's nonce: in its HELLO, or its NEXT on a kept connection. */
    final byte[] localNonce = Authenticator.newNonce();

    /** This side's HELLO payload as sent. */
    private ByteBuffer localHello;
    /** The peer's HELLO, once it arrived and decoded; on a kept connection, the first stream's. */
    private volatile Hello peerHello;
    /** The peer's nonce of this stream: from its HELLO, or from its NEXT on a kept connection. */
    private volatile byte[] peerNonce;
    /** The feature bits this side offered in its HELLO (on a kept connection: both offered reuse). */
    private volatile int localFeatures;
    /** The connection's keys, once both HELLOs are known. */
    private volatile SessionKeys keys;
    /** Seals what this side sends after its AUTH; guarded by {@link #sendLock}. */
    private FrameSeal outgoing;
    /** Opens what the peer sends after its AUTH; used on the transport's thread only. */
    private volatile FrameSeal incoming;
    private final Object sendLock = new Object();

    ControlSeals(FrameConnection connection, byte[] key, Hello.Role role) {
        this.connection = connection;
        this.authenticator = new Authenticator(key);
        this.role = role;
        this.peer = role == Hello.Role.SENDER ? Hello.Role.RECEIVER : Hello.Role.SENDER;
    }

    /** Records this side's HELLO; returns its payload to send. */
    ByteBuffer localHello(Hello hello) {
        localHello = hello.encode().asReadOnlyBuffer();
        localFeatures = hello.features();
        return localHello.duplicate();
    }

    /** A stream on a kept connection goes on with the previous stream's peer and seals until it re-keys. */
    void continueFrom(KeptConnection.Continuation previous) {
        peerHello = previous.peerHello();
        localFeatures = Hello.REUSES;
        synchronized (sendLock) {
            outgoing = previous.outgoing();
        }
        incoming = previous.incoming();
    }

    /** The peer's HELLO checked out: the keys follow from both HELLOs as sent. */
    void peerHello(Hello hello, ByteBuffer asSent) {
        keys = role == Hello.Role.SENDER ? authenticator.keys(localHello, asSent) : authenticator.keys(asSent, localHello);
        peerNonce = hello.nonce();
        peerHello = hello;
    }

    Hello peerHello() {
        return peerHello;
    }

    byte[] peerNonce() {
        return peerNonce;
    }

    /** Whether both HELLOs offered to keep the connection after a stream that ends well. */
    boolean reuses() {
        Hello p = peerHello;
        return p != null && p.has(Hello.REUSES) && (localFeatures & Hello.REUSES) != 0;
    }

    /** Opens what the peer sent, or null while the peer's frames are not sealed yet. */
    FrameSeal incoming() {
        return incoming;
    }

    /** Queues a control frame, sealed once this side has sent its AUTH. */
    void send(FrameType type, ByteBuffer payload) {
        synchronized (sendLock) {
            FrameSeal seal = outgoing;
            connection.sendControl(type, seal == null ? payload : seal.seal(type, payload));
        }
    }

    /** Sends this side's AUTH; every frame after it is sealed. */
    void sendAuth() {
        synchronized (sendLock) {
            send(FrameType.AUTH, ByteBuffer.wrap(keys.proof(role)));
            outgoing = keys.seal(role);
        }
    }

    /** Whether the peer's AUTH proves its key; if so, its frames from the next on must be sealed. */
    boolean verifyPeerAuth(byte[] proof) {
        if (!keys.verify(peer, proof)) {
            return false;
        }
        incoming = keys.seal(peer);
        return true;
    }

    /**
     * Both NEXT nonces are known: every frame this side sends from now on is sealed with the new
     * stream's keys, counters from 0, and every frame from the peer after its NEXT must open with
     * them. The receiver calls this right after its own NEXT, the sender on the receiver's.
     */
    void rekey(byte[] senderNonce, byte[] receiverNonce) {
        SessionKeys next = authenticator.nextKeys(senderNonce, receiverNonce);
        keys = next;
        peerNonce = role == Hello.Role.SENDER ? receiverNonce : senderNonce;
        synchronized (sendLock) {
            outgoing = next.seal(role);
        }
        incoming = next.seal(peer);
    }

    /**
     * A receiver's answer to NEXT: its own NEXT, then the new keys, in one step, so that no
     * frame sealed with the old keys (a PING) can follow its NEXT.
     */
    void answerNext(byte[] senderNonce) {
        synchronized (sendLock) {
            send(FrameType.NEXT, ControlFrames.next(localNonce));
            rekey(senderNonce, localNonce);
        }
    }

    /** What the next stream on a kept connection starts from: the peer's HELLO and both seals. */
    KeptConnection.Continuation continuation() {
        synchronized (sendLock) {
            return new KeptConnection.Continuation(peerHello, outgoing, incoming);
        }
    }
}
