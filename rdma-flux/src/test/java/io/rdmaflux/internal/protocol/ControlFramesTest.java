package io.rdmaflux.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Frame payload layouts: round trips, and clear errors for malformed or foreign input. */
class ControlFramesTest {

    @Test
    void helloRoundTrips() {
        byte[] nonce = Authenticator.newNonce();
        Hello h = Hello.decode(new Hello(Hello.Role.RECEIVER, nonce, 1 << 20, 16).encode());
        assertThat(h.role()).isEqualTo(Hello.Role.RECEIVER);
        assertThat(h.nonce()).isEqualTo(nonce);
        assertThat(h.frameSize()).isEqualTo(1 << 20);
        assertThat(h.receiveSlots()).isEqualTo(16);
    }

    @Test
    void foreignPeerAndOtherVersionAreNamedAsSuch() {
        ByteBuffer http = ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes());
        assertThatThrownBy(() -> Hello.decode(http)).isInstanceOf(RdmaFluxException.class)
                .hasMessageContaining("not an rdma-flux endpoint");
        ByteBuffer v9 = new Hello(Hello.Role.SENDER, new byte[32], 4096, 4).encode();
        v9.putShort(4, (short) 9);
        assertThatThrownBy(() -> Hello.decode(v9)).isInstanceOf(RdmaFluxException.class)
                .hasMessageContaining("version 9").hasMessageContaining("version " + ProtocolVersion.CURRENT)
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.VERSION));
    }

    @Test
    void metadataRoundTripsWithUnicodeAndEmptyValues() {
        StreamMetadata m = StreamMetadata.empty().with(StreamMetadata.NAME, "répertoire/ファイル.bin")
                .with(StreamMetadata.SIZE, "123").with("empty", "");
        StreamMetadata back = StreamMetadata.decode(m.encode());
        assertThat(back).isEqualTo(m);
        assertThat(back.size()).isEqualTo(123);
        assertThat(back.codecs()).isEmpty();
    }

    @Test
    void truncatedPayloadsAreProtocolErrorsNotCrashes() {
        Random r = new Random(42);
        ByteBuffer meta = StreamMetadata.empty().with("k", "value").encode();
        for (int cut = 0; cut < meta.remaining(); cut++) {
            ByteBuffer part = meta.duplicate().limit(cut);
            assertThatThrownBy(() -> StreamMetadata.decode(part)).isInstanceOf(RdmaFluxException.class);
        }
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[r.nextInt(40)];
            r.nextBytes(junk);
            try {
                Hello.decode(ByteBuffer.wrap(junk));
            } catch (RdmaFluxException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
        assertThatThrownBy(() -> ControlFrames.decodeCredit(ByteBuffer.allocate(2))).isInstanceOf(RdmaFluxException.class);
        assertThatThrownBy(() -> ControlFrames.decodeCredit(ControlFrames.credit(0))).isInstanceOf(RdmaFluxException.class);
        assertThat(ControlFrames.decodeError(ByteBuffer.allocate(1)).code()).isEqualTo(ErrorCode.PROTOCOL);
    }

    @Test
    void errorFramesCarryCodeAndMessage() {
        RdmaFluxException e = ControlFrames.decodeError(ControlFrames.error(ErrorCode.SINK_FAILED, "disk full"));
        assertThat(e.code()).isEqualTo(ErrorCode.SINK_FAILED);
        assertThat(e.getMessage()).isEqualTo("disk full");
        ControlFrames.End end = ControlFrames.decodeEnd(ControlFrames.end(1L << 40, 0xCAFEBABE));
        assertThat(end.bytes()).isEqualTo(1L << 40);
        assertThat(end.crc()).isEqualTo(0xCAFEBABE);
    }

    @Test
    void errorMessagesFromThePeerAreMadeSafeToPrint() {
        RdmaFluxException e = ControlFrames.decodeError(ControlFrames.error(ErrorCode.SINK_FAILED,
                "\u001b]0;owned\u0007\u001b[2J\u001b[31mdisk\nfull\r\u202e"));
        assertThat(e.getMessage()).isEqualTo("???disk full ?");
    }
}
