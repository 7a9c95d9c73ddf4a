package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import org.junit.jupiter.api.Test;

class CodecChainTest {

    @Test
    void serviceLoaderFindsBuiltInStages() {
        assertThat(CodecRegistry.defaultRegistry().stages())
                .extracting(CodecStage::name).contains("zstd", "aes-256-gcm");
    }

    @Test
    void formatsAndParsesTheChainString() {
        CodecChain chain = CodecChain.builder().zstd(3).aesGcm().build();
        assertThat(chain.format()).isEqualTo("zstd:1;level=3,aes-256-gcm:1");
        CodecChain back = CodecChain.parse(chain.format());
        assertThat(back).isEqualTo(chain);
        assertThat(back.requiresKey()).isTrue();
        assertThat(back.contains("zstd")).isTrue();
        assertThat(CodecChain.parse("zstd:1").specs().get(0).param("level", "?")).isEqualTo("?");
        assertThat(CodecChain.parse(" zstd:1 , aes-256-gcm:1 ").specs()).hasSize(2);
    }

    @Test
    void emptyOrBlankIsTheEmptyChain() {
        assertThat(CodecChain.parse("").isEmpty()).isTrue();
        assertThat(CodecChain.parse(null).isEmpty()).isTrue();
        assertThat(CodecChain.empty().format()).isEmpty();
        assertThat(CodecChain.empty().requiresKey()).isFalse();
    }

    @Test
    void unknownCodecIsRefusedWithAClearCodecError() {
        assertThatThrownBy(() -> CodecChain.parse("zstd:1,lz5:1"))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageContaining("unknown codec 'lz5'").hasMessageContaining("zstd");
    }

    @Test
    void unsupportedVersionIsRefused() {
        assertThatThrownBy(() -> CodecChain.parse("aes-256-gcm:2"))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageContaining("version 2 is not supported");
    }

    @Test
    void malformedStringsAreRefused() {
        for (String s : new String[] {"zstd", "zstd:x", "zstd:1,", ",zstd:1", "zstd:1;level", "ZSTD:1", "zstd:1;level=99",
                "zstd:1;level=0", "zstd:1;level=abc", "zstd:-1", "zstd:1;block=0", "zstd:1;block=x", "zstd:1;block=67108864"}) {
            assertThatThrownBy(() -> CodecChain.parse(s)).as(s)
                    .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC));
        }
    }

    @Test
    void blockSizeLeavesRoomForRecordHeadersInOneFrame() {
        CodecChain chain = CodecChain.builder().zstd(1).aesGcm().build();
        assertThat(chain.blockSizeFor(1 << 20)).isEqualTo((1 << 20) - ZstdStage.HEADER - AesGcmStage.HEADER - AesGcmStage.TAG);
        assertThat(CodecChain.empty().blockSizeFor(1 << 20)).isEqualTo(1 << 20);
        assertThat(CodecContext.DEFAULT_BLOCK_SIZE).isLessThanOrEqualTo(chain.blockSizeFor(1 << 20));
    }

    @Test
    void aChainSizedForAFrameSizeCutsItsBlocksAndAnnouncesThem() {
        int frame = 1 << 20;
        int block = frame - ZstdStage.HEADER - AesGcmStage.HEADER - AesGcmStage.TAG;
        CodecChain chain = CodecChain.builder().zstd(1).aesGcm().build().forFrameSize(frame);
        assertThat(chain.blockSize()).isEqualTo(block);
        assertThat(chain.format()).isEqualTo("zstd:1;level=1;block=" + block + ",aes-256-gcm:1");
        assertThat(CodecChain.parse(chain.format())).isEqualTo(chain);
        // A later stage takes the records of the earlier ones: its announced block is that much larger.
        CodecChain reversed = CodecChain.parse("aes-256-gcm:1,zstd:1").forFrameSize(frame);
        assertThat(reversed.format()).isEqualTo("aes-256-gcm:1,zstd:1;block=" + (block + AesGcmStage.HEADER + AesGcmStage.TAG));
        // Sizing again replaces the announcement.
        assertThat(chain.forFrameSize(2 * frame).format()).isEqualTo("zstd:1;level=1;block=" + (block + frame) + ",aes-256-gcm:1");
        assertThat(CodecChain.empty().forFrameSize(frame).blockSize()).isEqualTo(frame);
        assertThat(CodecChain.parse("zstd:1").blockSize()).isEqualTo(CodecContext.DEFAULT_BLOCK_SIZE);
    }

    @Test
    void providerIsReported() {
        assertThat(AesGcmStage.provider()).startsWith("AES-256-GCM: ");
        assertThat(AesGcmStage.provider()).containsAnyOf("OpenSSL", "JDK");
    }
}
