package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;

class CodecWorkersTest {

    static byte[] roundTrip(byte[] data, CodecContext ctx, Set<Scheduler> used) {
        used.add(ctx.scheduler());
        CodecChain chain = CodecChain.parse("zstd:1");
        return TestData.collect(chain.decode(chain.encode(new TestData.Tracker().source(data, 10_000), ctx), ctx));
    }

    @Test
    void shutdownStopsTheSharedPoolAndTheNextStreamStartsAnother() {
        byte[] data = TestData.compressible(new Random(1), 200_000);
        Set<Scheduler> used = ConcurrentHashMap.newKeySet();
        CodecContext ctx = CodecContext.keyless().withBlockSize(10_000);
        assertThat(roundTrip(data, ctx, used)).isEqualTo(data);
        Scheduler first = CodecWorkers.scheduler();
        assertThat(used).containsExactly(first);

        CodecWorkers.shutdown();
        assertThat(first.isDisposed()).isTrue();

        // A context made before the shutdown takes the new pool: it holds no pool of its own.
        assertThat(roundTrip(data, ctx, used)).isEqualTo(data);
        assertThat(used).hasSize(2).contains(CodecWorkers.scheduler());
        assertThat(CodecWorkers.scheduler().isDisposed()).isFalse();
    }
}
