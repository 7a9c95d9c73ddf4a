package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TreeTally}: what the report lists is bounded, what it counts is not, and the listener hears as the report lists. */
class TreeTallyTest {

    @Test
    void failuresAndWarningsAreListedUpToTheBoundAndCountedPastIt() {
        List<String> heard = new ArrayList<>();
        TreeTally tally = new TreeTally(new TreeListener() {
            @Override
            public void onFailure(TreeFailure failure) {
                heard.add("failure " + failure.path());
            }

            @Override
            public void onWarning(String path, String message) {
                heard.add("warning " + path);
            }
        }, 2);
        for (int i = 0; i < 5; i++) {
            tally.failed("f" + i, "cannot write it");
            tally.warn(i == 0 ? "" : "w" + i, "odd");
        }
        TreeReport report = tally.report("dest");
        assertThat(report.failureCount()).isEqualTo(5);
        assertThat(report.failures()).extracting(TreeFailure::path).containsExactly("f0", "f1");
        assertThat(report.warningCount()).isEqualTo(5);
        assertThat(report.warnings()).containsExactly(".: odd", "w1: odd");
        // Every failure is passed on, warnings only as far as they are listed.
        assertThat(heard).containsExactly("failure f0", "warning ", "failure f1", "warning w1",
                "failure f2", "failure f3", "failure f4");
    }

    @Test
    void bytesWrittenAreSummedWithoutWrapping() {
        TreeTally tally = new TreeTally(new TreeListener() { }, 10);
        tally.fileWritten(Long.MAX_VALUE - 1);
        tally.fileWritten(1);
        assertThat(tally.report("d").bytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(tally.report("d").files()).isEqualTo(2);
        assertThatThrownBy(() -> tally.fileWritten(1)).hasMessageContaining("the bytes written add up to more than");
    }
}
