package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PipePlanTest {

    @Test
    void segmentsAndOperators() {
        assertThat(PipeSegment.parse(1, "h1:tr [:lower:] [:upper:]"))
                .extracting(s -> s.host().toString(), PipeSegment::kind, PipeSegment::text)
                .containsExactly("h1", PipeSegment.Kind.COMMAND, "tr [:lower:] [:upper:]");
        assertThat(PipeSegment.parse(2, "user@fs1:< 'my file'"))
                .extracting(s -> s.host().toString(), PipeSegment::kind, PipeSegment::text)
                .containsExactly("user@fs1", PipeSegment.Kind.READ, "my file");
        assertThat(PipeSegment.parse(3, "h2:>> log").kind()).isEqualTo(PipeSegment.Kind.APPEND);
        assertThat(PipeSegment.parse(4, "h2:  >copy").text()).isEqualTo("copy");
        PipeSegment local = PipeSegment.parse(5, "sort -t: -k2");
        assertThat(local.isLocal()).isTrue();
        assertThat(local.text()).isEqualTo("sort -t: -k2");
        assertThat(PipeSegment.parse(2, "h1:sort -u").shown()).isEqualTo("h1:'sort -u'");
    }

    @Test
    void badSegments() {
        assertThatThrownBy(() -> PipeSegment.parse(1, "h1:  ")).isInstanceOf(UsageException.class)
                .hasMessage("segment 1 'h1:  ': no command");
        assertThatThrownBy(() -> PipeSegment.parse(2, "h1:<")).hasMessageContaining("'<' takes one file name");
        assertThatThrownBy(() -> PipeSegment.parse(2, "h1:> a b")).hasMessageContaining("'>' takes one file name");
        assertThatThrownBy(() -> PipeSegment.parse(3, "h1:< 'a")).hasMessageContaining("unterminated single quote");
    }

    @Test
    void remoteEndsGetLocalHopsForStdinAndStdout() {
        PipePlan plan = plan("h1:tr a-z A-Z", "h2:rev");
        assertThat(plan.describe()).containsExactly(
                "local: stdin | send to h1",
                "h1: receive (a port of its own) | tr a-z A-Z | send to h2",
                "h2: receive (a port of its own) | rev | send to this host",
                "local: receive (a port of its own) | stdout");
        assertThat(plan.readsStdin()).isTrue();
        assertThat(plan.runs().get(0).get(1).pipeline(3, true)).isEqualTo(Map.of(
                "source", Map.of("type", "receive", "port", 0, "require-encryption", true),
                "filters", List.of(Map.of("type", "command", "command", "tr a-z A-Z", "shell", "login")),
                "stages", List.of(Map.of("type", "zstd", "level", 3), Map.of("type", "aes-256-gcm")),
                "sink", Map.of("type", "send")));
    }

    @Test
    void fileOperatorsAndLocalSegments() {
        assertThat(plan("fs1:< textfile", "caps:tr [:lower:] [:upper:]", "fs2:> TEXTFILE").describe()).containsExactly(
                "fs1: file textfile | send to caps",
                "caps: receive (a port of its own) | tr [:lower:] [:upper:] | send to fs2",
                "fs2: receive (a port of its own) | file TEXTFILE");
        assertThat(plan("tr a-z A-Z", "h1:>> log").describe()).containsExactly(
                "local: stdin | tr a-z A-Z | send to h1",
                "h1: receive (a port of its own) | append to file log");
        assertThat(plan("h1:< a", "h1:< b", "wc -c").describe()).containsExactly(
                "run 1:",
                "  h1: file a | discard (a later '<' starts a new chain)",
                "run 2 (after run 1 ended):",
                "  h1: file b | send to this host",
                "  local: receive (a port of its own) | wc -c | stdout");
        assertThat(plan("h1:> a", "h2:wc -c").describe()).containsExactly(
                "local: stdin | send to h1",
                "h1: receive (a port of its own) | file a",
                "h2: nothing (an empty stream) | wc -c | send to this host",
                "local: receive (a port of its own) | stdout");
        assertThat(plan("h1:zfs send tank@s").withoutStdin().describe().get(0)).isEqualTo(
                "local: nothing (an empty stream) | send to h1");
    }

    private static PipePlan plan(String... args) {
        List<PipeSegment> s = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            s.add(PipeSegment.parse(i + 1, args[i]));
        }
        return PipePlan.of(s);
    }
}
