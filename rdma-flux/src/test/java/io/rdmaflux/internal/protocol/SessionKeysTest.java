package io.rdmaflux.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Proofs and frame seals of protocol version 2: what each one binds, and what fails to open. */
class SessionKeysTest {

    private final ByteBuffer senderHello = new Hello(Hello.Role.SENDER, Authenticator.newNonce(), 1 << 20, 16).encode();
    private final ByteBuffer receiverHello = new Hello(Hello.Role.RECEIVER, Authenticator.newNonce(), 1 << 20, 16).encode();

    private SessionKeys keys(String key) {
        return new Authenticator(key.getBytes(StandardCharsets.UTF_8)).keys(senderHello, receiverHello);
    }

    @Test
    void proofsDependOnKeyRoleAndBothHellos() {
        byte[] proof = keys("key").proof(Hello.Role.SENDER);
        assertThat(keys("key").verify(Hello.Role.SENDER, proof)).isTrue();
        assertThat(keys("key").verify(Hello.Role.RECEIVER, proof)).as("reflected to the other role").isFalse();
        assertThat(keys("other").verify(Hello.Role.SENDER, proof)).as("another key").isFalse();
        assertThat(new Authenticator("key".getBytes()).keys(receiverHello, senderHello).verify(Hello.Role.SENDER, proof))
                .as("HELLOs swapped").isFalse();
        ByteBuffer altered = ByteBuffer.allocate(senderHello.remaining()).put(senderHello.duplicate()).flip();
        altered.putInt(altered.limit() - 4, 2);
        assertThat(new Authenticator("key".getBytes()).keys(altered, receiverHello).verify(Hello.Role.SENDER, proof))
                .as("receive slots altered on the way").isFalse();
        assertThatThrownBy(() -> new Authenticator(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSealedFrameOpensOnceInOrderAndOnlyUnaltered() {
        FrameSeal out = keys("key").seal(Hello.Role.RECEIVER);
        FrameSeal in = keys("key").seal(Hello.Role.RECEIVER);
        ByteBuffer first = out.seal(FrameType.END_ACK, ControlFrames.endAck(42));
        ByteBuffer second = out.seal(FrameType.END_ACK, ControlFrames.endAck(42));
        assertThat(first.remaining()).isEqualTo(8 + FrameSeal.TAG_BYTES);
        assertThat(second).as("same frame, next counter: another tag").isNotEqualTo(first);
        assertThat(ControlFrames.decodeEndAck(in.open(FrameType.END_ACK, first.duplicate()))).isEqualTo(42);
        assertThatThrownBy(() -> in.open(FrameType.END_ACK, first.duplicate())).as("replayed")
                .isInstanceOf(RdmaFluxException.class).hasMessageContaining("failed authentication");
    }

    @Test
    void aSealFailsForAnotherTypeDirectionKeyOrAnyFlippedBit() {
        ByteBuffer sealed = keys("key").seal(Hello.Role.SENDER).seal(FrameType.END, ControlFrames.end(7, 9));
        assertThatThrownBy(() -> keys("key").seal(Hello.Role.SENDER).open(FrameType.END_ACK, sealed.duplicate()))
                .as("another type").isInstanceOf(RdmaFluxException.class);
        assertThatThrownBy(() -> keys("key").seal(Hello.Role.RECEIVER).open(FrameType.END, sealed.duplicate()))
                .as("the other direction's key").isInstanceOf(RdmaFluxException.class);
        assertThatThrownBy(() -> keys("other").seal(Hello.Role.SENDER).open(FrameType.END, sealed.duplicate()))
                .as("another shared key").isInstanceOf(RdmaFluxException.class);
        for (int bit = 0; bit < sealed.remaining() * 8; bit += 5) {
            ByteBuffer flipped = ByteBuffer.allocate(sealed.remaining()).put(sealed.duplicate()).flip();
            flipped.put(bit / 8, (byte) (flipped.get(bit / 8) ^ (1 << (bit % 8))));
            assertThatThrownBy(() -> keys("key").seal(Hello.Role.SENDER).open(FrameType.END, flipped))
                    .as("bit %d flipped", bit).isInstanceOf(RdmaFluxException.class)
                    .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.PROTOCOL));
        }
        assertThatThrownBy(() -> keys("key").seal(Hello.Role.SENDER).open(FrameType.END, ByteBuffer.allocate(12)))
                .as("no tag at all").isInstanceOf(RdmaFluxException.class);
    }

    @Test
    void eachStreamOnAKeptConnectionHasItsOwnKeysFromBothNextNonces() {
        Authenticator a = new Authenticator("key".getBytes(StandardCharsets.UTF_8));
        byte[] s1 = Authenticator.newNonce();
        byte[] r1 = Authenticator.newNonce();
        byte[] r2 = Authenticator.newNonce();
        ByteBuffer payload = ByteBuffer.wrap("METADATA".getBytes(StandardCharsets.UTF_8));
        ByteBuffer sealed = a.nextKeys(s1, r1).seal(Hello.Role.SENDER).seal(FrameType.METADATA, payload);
        // The same frame, the same counter: it opens only under the keys it was sealed with.
        assertThat(a.nextKeys(s1, r1).seal(Hello.Role.SENDER).open(FrameType.METADATA, sealed.duplicate()))
                .isEqualTo(payload);
        for (SessionKeys other : java.util.List.of(a.nextKeys(s1, r2), a.nextKeys(r1, s1), keys("key"),
                new Authenticator("other".getBytes(StandardCharsets.UTF_8)).nextKeys(s1, r1))) {
            assertThatThrownBy(() -> other.seal(Hello.Role.SENDER).open(FrameType.METADATA, sealed.duplicate()))
                    .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL));
        }
    }
}
