package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;

/**
 * The stages' workers are non-blocking threads: compression and encryption must never block
 * on them, not even on first use (loading native libraries extracts files; the stages do that
 * on the caller's thread when a stream is set up). BlockHound fails any blocking call there.
 */
class NonBlockingTest {

    @Test
    void stagesNeverBlockOnTheirWorkers() {
        BlockHound.install();
        Random r = new Random(12);
        byte[] data = TestData.compressible(r, 3 << 20);
        for (String chainText : new String[] {"zstd:1", "aes-256-gcm:1", "zstd:1;level=3,aes-256-gcm:1"}) {
            CodecChain chain = CodecChain.parse(chainText);
            CodecContext ctx = CodecContext.of("k".getBytes(), Codecs.newSalt()).withBlockSize(256 * 1024);
            byte[] wire = TestData.collect(chain.encode(new TestData.Tracker().source(data, 1 << 20), ctx));
            byte[] back = TestData.collect(chain.decode(TestData.recut(wire, r, 300_000, new TestData.Tracker()), ctx));
            assertThat(back).as(chainText).isEqualTo(data);
        }
    }
}
