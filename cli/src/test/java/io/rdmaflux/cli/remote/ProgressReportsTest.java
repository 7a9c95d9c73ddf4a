package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressReportsTest {

    private final ProgressCount count = new ProgressCount();
    private final List<AgentMessage> sent = new ArrayList<>();
    private final ProgressReports reports = new ProgressReports(count, sent::add);

    @Test
    void aTickSendsTheCountsOnlyWhenTheyChanged() {
        reports.tick();
        reports.tick();
        count.moved(10);
        reports.tick();
        assertThat(sent).containsExactly(new AgentMessage.Progress(0, -1, -1, -1, -1, -1, -1, -1),
                new AgentMessage.Progress(10, -1, -1, -1, -1, -1, -1, -1));
    }

    @Test
    void nothingFollowsTheLastReportSoTheFinalCountsStay() {
        count.moved(5);
        reports.tick();
        count.file(5);
        reports.last();
        reports.tick();   // a periodic report that fires as the job ends
        reports.last();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(sent.size() - 1)).isEqualTo(new AgentMessage.Progress(5, 1, 5, -1, -1, -1, -1, -1));
    }
}
