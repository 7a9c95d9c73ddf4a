package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The sender's reconnect waits: short while the receiver is likely just starting, bounded by the timeout. */
class ConnectRetryTest {

    @Test
    void theFirstRetriesComeSoonThenEvery200Ms() {
        assertThat(ConnectRetry.delay(0)).isEqualTo(Duration.ofMillis(10));
        assertThat(ConnectRetry.delay(1)).isEqualTo(Duration.ofMillis(20));
        assertThat(ConnectRetry.delay(4)).isEqualTo(Duration.ofMillis(160));
        assertThat(ConnectRetry.delay(5)).isEqualTo(Duration.ofMillis(200));
        assertThat(ConnectRetry.delay(1000)).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void theRetriesTogetherWaitTheWholeConnectTimeoutAndNoMore() {
        for (Duration timeout : new Duration[] {Duration.ofMillis(1), Duration.ofMillis(300), Duration.ofSeconds(10)}) {
            long n = ConnectRetry.retries(timeout);
            long waited = LongStream.range(0, n).map(i -> ConnectRetry.delay(i).toMillis()).sum();
            long lessOne = waited - ConnectRetry.delay(n - 1).toMillis();
            assertThat(waited).as("%s", timeout).isGreaterThanOrEqualTo(timeout.toMillis());
            assertThat(lessOne).as("%s", timeout).isLessThan(timeout.toMillis());
        }
    }
}
