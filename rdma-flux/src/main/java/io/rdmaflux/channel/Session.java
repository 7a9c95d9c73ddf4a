package io.rdmaflux.channel;

import io.rdmaflux.protocol.StreamMetadata;

/**
 * Facts about one authenticated stream, known to both sides once the handshake is done.
 * The two nonces are fresh random values from each side's HELLO; codec stages mix them with
 * the shared key to derive per-session keys (so two sessions never share an AES key).
 *
 * @param senderNonce   the sender's 32-byte HELLO nonce
 * @param receiverNonce the receiver's 32-byte HELLO nonce
 * @param transport     which transport carries the stream: "tcp" or "rdma"
 * @param peer          a description of the other side, for messages
 * @param metadata      what the sender said about the stream
 */
public record Session(byte[] senderNonce, byte[] receiverNonce, String transport, String peer,
                      StreamMetadata metadata) {

    /** Both nonces, sender's first: the salt for per-session key derivation. */
    public byte[] salt() {
        byte[] s = new byte[senderNonce.length + receiverNonce.length];
        System.arraycopy(senderNonce, 0, s, 0, senderNonce.length);
        System.arraycopy(receiverNonce, 0, s, senderNonce.length, receiverNonce.length);
        return s;
    }
}
