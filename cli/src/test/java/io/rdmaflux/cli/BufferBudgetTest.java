package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.cli.remote.HostMemory;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link BufferBudget} in the words of a tool and of an agent (whose line the coordinator prints
 * after the host's name), against a host's memory given: the 2 GiB host here is one this test
 * cannot be run on, and AgentMemoryE2ETest runs the JVM-limit refusal on a real agent.
 */
class BufferBudgetTest {

    private static final HostMemory.Room TWO_GIB = new HostMemory.Room(2L << 30, false);
    private static final HostMemory.Room EIGHT_GIB = new HostMemory.Room(8L << 30, false);
    private static final ChannelOptions BIG = ChannelOptions.defaults().withFrameSize(64 << 20).withReceiveSlots(16)
            .withSendSlots(16);

    @Test
    void aHostWithTooLittleMemoryIsRefusedInTheWordsOfItsEnd() {
        long need = BufferBudget.need(BIG, 0, false);
        String agent = catchThrowable(() -> BufferBudget.check(BIG, 0, false, true, () -> Long.MAX_VALUE, TWO_GIB)).getMessage();
        assertThat(agent).isEqualTo("--frame-size 64M with --slots 16 needs about " + Meter.human(need)
                + " of buffer memory, more than 3/4 of the host's 2.00 GiB: use a smaller --frame-size or fewer --slots");
        String tool = catchThrowable(() -> BufferBudget.check(BIG, 0, false, false, () -> Long.MAX_VALUE, TWO_GIB)).getMessage();
        assertThat(tool).contains("more than 3/4 of this machine's 2.00 GiB");
        assertThatCode(() -> BufferBudget.check(BIG, 0, false, true, () -> Long.MAX_VALUE, EIGHT_GIB)).doesNotThrowAnyException();
    }

    @Test
    void aControlGroupsLimitIsNamedAsSuch() {
        HostMemory.Room group = new HostMemory.Room(2L << 30, true);
        assertThat(catchThrowable(() -> BufferBudget.check(BIG, 0, false, false, () -> Long.MAX_VALUE, group)))
                .hasMessageContaining("more than 3/4 of the 2.00 GiB that this process's control group may use: use a smaller");
        assertThat(catchThrowable(() -> BufferBudget.check(BIG, 0, false, true, () -> Long.MAX_VALUE, group)))
                .hasMessageContaining("more than 3/4 of the 2.00 GiB that the agent's control group there may use");
    }

    @Test
    void aJobsSizesAreReadFromItsChannelEnds() {
        // A send sink of 64 MiB x 32 (a ring of 2 GiB, refused on any host), with the sizes the job named.
        Map<String, Object> job = Map.of("source", Map.of("type", "file", "path", "x"),
                "sink", Map.of("type", "send", "frame-size", 64L << 20, "slots", 32));
        assertThat(catchThrowable(() -> AgentPipelines.checkBudget(job, true)))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("--frame-size 64M with --slots 32 makes rings of 2.00 GiB");
        // At the defaults, and with sizes the pipeline's own validation refuses, nothing is checked here.
        assertThatCode(() -> AgentPipelines.checkBudget(Map.of("source", Map.of("type", "receive")), true))
                .doesNotThrowAnyException();
        assertThatCode(() -> AgentPipelines.checkBudget(Map.of("source", Map.of("type", "receive", "frame-size", "1X")), true))
                .doesNotThrowAnyException();
        assertThat(ExitCode.of(new UsageException("x"))).isEqualTo(ExitCode.USAGE);
    }
}
