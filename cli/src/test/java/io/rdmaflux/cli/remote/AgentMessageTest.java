package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AgentMessageTest {

    @Test
    void everyMessageRoundTrips() {
        List<AgentMessage> all = List.of(
                new AgentMessage.Hello(1, "rdma-flux 1", "10.0.0.1", "fe80::1%eth0"),
                new AgentMessage.Hello(1, null, null, null),
                new AgentMessage.Hello(1, "rdma-flux 1", null, null, "00ff"),
                new AgentMessage.Job(Map.of("source", Map.of("type", "file", "path", "/a b/ü"),
                        "stages", List.of(Map.of("type", "zstd", "level", 3L))), 1000, true, false),
                new AgentMessage.Connect("127.0.0.3", 65535),
                // Port 0: nowhere to send (a relay whose next hosts all failed, rdcp --to).
                new AgentMessage.Connect("nowhere", 0),
                new AgentMessage.Listening(1, List.of("rdma", "tcp")),
                new AgentMessage.Started(),
                new AgentMessage.Progress(Long.MAX_VALUE),
                new AgentMessage.Done(0, 7, null),
                new AgentMessage.Done(73, 0, "cannot create /x: permission denied"),
                new AgentMessage.Done(75, 9, "receiver reported: receiver stopped reading", List.of(), true));
        for (AgentMessage m : all) {
            assertThat(AgentMessage.parse(m.toLine())).isEqualTo(m);
        }
        assertThat(AgentMessage.parse("{\"type\":\"later\",\"x\":[1]}")).isEqualTo(new AgentMessage.Unknown("later"));
    }

    @Test
    void aHelloStartsWithTheFormTheCoordinatorLooksFor() {
        assertThat(new AgentMessage.Hello(1, "v", null, null, AgentMessage.newNonce()).toLine())
                .startsWith(AgentMessage.HELLO_START);
        assertThat(AgentMessage.newNonce()).matches("[0-9a-f]{32}").isNotEqualTo(AgentMessage.newNonce());
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json", "{}", "{\"type\":1}", "{\"type\":\"connect\",\"host\":\"h\",\"port\":-1}",
        "{\"type\":\"done\",\"status\":256}", "{\"type\":\"job\",\"pipeline\":[]}", "{\"type\":\"hello\"}",
        "{\"type\":\"job\",\"pipeline\":{},\"verbose\":\"yes\"}", "{\"type\":\"progress\",\"bytes\":-1}"})
    void refusesMalformedMessages(String line) {
        assertThatThrownBy(() -> AgentMessage.parse(line)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aJobPrintsWithoutItsKeys() {
        AgentMessage.Job job = new AgentMessage.Job(Map.of("source", Map.of("type", "receive", "key", "s3cret"),
                "sink", Map.of("type", "send", "key", "s3cret2")), 0, false, false);
        assertThat(job.toString()).doesNotContain("s3cret").contains("<secret>");
        assertThat(job.toLine()).contains("s3cret");
    }

    @Test
    void keysAreFreshAndLong() {
        String a = AgentMessage.newKey();
        assertThat(a).hasSize(43).matches("[A-Za-z0-9_-]+").isNotEqualTo(AgentMessage.newKey());
    }

    @Test
    void addressesAreIpLiteralsOnly() {
        assertThat(AgentMessage.isAddress("127.0.0.2")).isTrue();
        assertThat(AgentMessage.isAddress("::1")).isTrue();
        assertThat(AgentMessage.isAddress("fe80::1%eth0")).isTrue();
        assertThat(AgentMessage.isAddress("evil.example")).isFalse();
        assertThat(AgentMessage.isAddress("1.2.3.4; rm")).isFalse();
        assertThat(AgentMessage.isAddress("")).isFalse();
    }
}
