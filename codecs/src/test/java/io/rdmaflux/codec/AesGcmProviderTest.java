package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * OpenSSL (through Commons Crypto and librdflux-openssl3.so) and the JDK's cipher write the same
 * records: a stream sealed by either opens with the other, and a tampered one fails with both.
 */
class AesGcmProviderTest {

    static final int BLOCK = 64 * 1024;
    static final byte[] KEY = "shared key".getBytes();

    /** This process's OpenSSL implementation; the tests that need it are skipped where it does not load. */
    static AesGcmProvider openSsl() {
        AesGcmProvider p = AesGcmProvider.get();
        assumeTrue(p.isOpenSsl(), p.description());
        return p;
    }

    static AesGcmProvider provider(String name) {
        return name.equals("openssl") ? openSsl() : AesGcmProvider.jdk();
    }

    @Test
    void whereTheBuildMadeTheShimOpenSslRuns() {
        // The native-openssl profile builds the shim wherever the OpenSSL headers are (CI installs them).
        assumeTrue(OpenSslShim.class.getResource(OpenSslShim.RESOURCE) != null, "built without librdflux-openssl3.so");
        assertThat(AesGcmStage.isOpenSsl()).as(AesGcmStage.provider()).isTrue();
        assertThat(AesGcmStage.provider()).startsWith("AES-256-GCM: OpenSSL ").contains("Commons Crypto 1.2.0");
        // The property that pointed Commons Crypto at the shim is not left behind.
        assertThat(System.getProperty(OpenSslShim.PROPERTY)).isNull();
    }

    @Test
    void theDescriptionIsTheSameWithoutBlocking() {
        StepVerifier.create(AesGcmStage.describe()).expectNext(AesGcmStage.provider()).expectComplete()
                .verify(Duration.ofSeconds(30));
    }

    static byte[] seal(AesGcmProvider p, byte[] data, CodecContext ctx) {
        return TestData.collect(new AesGcmStage(p).encoder(AesGcmStage.spec(), ctx)
                .apply(new TestData.Tracker().source(data, BLOCK)));
    }

    static Flux<Chunk> open(AesGcmProvider p, byte[] wire, CodecContext ctx) {
        return new AesGcmStage(p).decoder(AesGcmStage.spec(), ctx)
                .apply(TestData.recut(wire, new Random(wire.length), 3 * BLOCK, new TestData.Tracker()));
    }

    @ParameterizedTest(name = "sealed by {0}, opened by {1}")
    @CsvSource({"jdk, openssl", "openssl, jdk", "openssl, openssl", "jdk, jdk"})
    void streamsSealedByOneOpenWithTheOther(String sealer, String opener) {
        byte[] data = TestData.compressible(new Random(7), 10 * BLOCK + 123);
        CodecContext ctx = CodecContext.of(KEY, Codecs.newSalt()).withBlockSize(BLOCK);
        byte[] wire = seal(provider(sealer), data, ctx);
        assertThat(wire).hasSize(data.length + 12 * (AesGcmStage.HEADER + AesGcmStage.TAG));
        assertThat(TestData.collect(open(provider(opener), wire, ctx))).isEqualTo(data);
    }

    @ParameterizedTest(name = "sealed by {0}, opened by {1}")
    @CsvSource({"jdk, openssl", "openssl, jdk"})
    void aFlippedBitFailsWhicheverOpens(String sealer, String opener) {
        byte[] data = TestData.random(new Random(8), 4 * BLOCK);
        CodecContext ctx = CodecContext.of(KEY, Codecs.newSalt()).withBlockSize(BLOCK);
        byte[] wire = seal(provider(sealer), data, ctx);
        wire[2 * (AesGcmStage.HEADER + BLOCK + AesGcmStage.TAG) + 500] ^= 1;   // inside record #2's ciphertext
        StepVerifier.create(open(provider(opener), wire, ctx).doOnNext(Chunk::release))
                .expectNextCount(2)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaFluxException.class,
                        p -> assertThat(p.code()).isEqualTo(ErrorCode.CODEC))
                        .hasMessage("aes-256-gcm: record #2 failed authentication: the data was altered"))
                .verify(Duration.ofSeconds(30));
    }
}
