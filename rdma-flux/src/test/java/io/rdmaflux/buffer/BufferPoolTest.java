package io.rdmaflux.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A closed pool keeps no buffer: neither its free ones nor those leased when it closed. */
class BufferPoolTest {

    @Test
    void closingLetsGoOfFreeBuffersAtOnceAndOfLeasedOnesAsTheyComeBack() {
        BufferPool pool = new BufferPool("test", 4096, 4);
        Chunk kept = pool.acquire();
        pool.acquire().release();
        assertThat(pool.allocatedBytes()).isEqualTo(2 * 4096);

        pool.close();
        assertThat(pool.allocatedBytes()).as("after close, only the leased buffer").isEqualTo(4096);
        kept.release();
        assertThat(pool.allocatedBytes()).as("after the last lease came back").isZero();
        assertThat(pool.outstanding()).isZero();
        assertThatThrownBy(pool::acquire).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void anOpenPoolReusesWhatComesBack() {
        BufferPool pool = new BufferPool("test", 4096, 2);
        pool.acquire().release();
        pool.acquire().release();
        assertThat(pool.allocatedBytes()).isEqualTo(4096);
    }
}
