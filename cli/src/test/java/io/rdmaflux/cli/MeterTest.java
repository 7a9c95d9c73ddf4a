package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress line on a clock the test moves: no timing involved. */
class MeterTest {

    private static final long MIB = 1 << 20;
    private static final long HALF_SECOND = 500_000_000L;

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Meter meter = new Meter(now::get);

    @Test
    void theEtaFollowsTheRecentRateNotTheAverage() {
        meter.streamStarted();
        meter.total(2000 * MIB);
        // 10 s at 100 MiB/s, then 10 s at 1 MiB/s, a line drawn every half second.
        for (int tick = 0; tick < 40; tick++) {
            now.addAndGet(HALF_SECOND);
            meter.add(tick < 20 ? 50 * MIB : MIB / 2);
            meter.line();
        }
        // 990 MiB left at the last 5 s's 1 MiB/s; the average since the start (50.5 MiB/s)
        // would promise 20 s.
        assertThat(meter.line()).contains("1.00 MiB/s").contains("ETA 0:16:30");
    }

    @Test
    void theFirstLinesUseTheRateSinceTheStart() {
        meter.streamStarted();
        meter.total(100 * MIB);
        now.addAndGet(2 * HALF_SECOND);
        meter.add(10 * MIB);
        assertThat(meter.line()).startsWith("10.00 MiB / 100.00 MiB  10%  10.00 MiB/s  ETA 0:00:09");
    }

    @Test
    void aShorterRedrawLeavesNothingOfTheLongerLineBefore() {
        meter.streamStarted();
        meter.total(100 * MIB);
        now.addAndGet(HALF_SECOND);
        meter.add(40 * MIB);
        String first = meter.redraw();
        now.addAndGet(HALF_SECOND);
        meter.add(60 * MIB);
        String last = meter.redraw();
        String screen = terminal(first + last);
        assertThat(first).contains("ETA");
        assertThat(last).doesNotContain("ETA");
        assertThat(screen.stripTrailing()).isEqualTo(meter.line());
    }

    /** What a terminal shows after {@code output}: carriage returns go back to column 0. */
    private static String terminal(String output) {
        StringBuilder line = new StringBuilder();
        int column = 0;
        for (char c : output.toCharArray()) {
            if (c == '\r') {
                column = 0;
            } else {
                if (column < line.length()) {
                    line.setCharAt(column, c);
                } else {
                    line.append(c);
                }
                column++;
            }
        }
        return line.toString();
    }

    @Test
    void theSummaryCountsFilesInGoodEnglish() {
        Meter m = new Meter();
        m.files(1, 1);
        assertThat(m.summary()).startsWith("1 file, 0 bytes");
        m.files(2, 2);
        assertThat(m.summary()).startsWith("2 files, 0 bytes");
        assertThat(m.summary(0, 0, 6)).matches("0 files, 0 bytes \\(0 B\\) in [0-9.]+ s; 6 files already up to date");
        assertThat(m.summary(1, 4096, 1)).matches("1 file, 4096 bytes \\(4\\.00 KiB\\) in [0-9.]+ s; 1 file already up to date");
    }
}
