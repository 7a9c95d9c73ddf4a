package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.cli.standby.StandbyContext.Fd;
import io.rdmaflux.cli.standby.StandbyContext.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The context a client sends its standby, as the wire carries it (NUL-terminated items). */
class StandbyContextTest {

    static byte[] items(String... items) {
        StringBuilder b = new StringBuilder();
        for (String i : items) {
            b.append(i).append('\0');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsPidToolArgumentsFdsAndTerminal() {
        StandbyContext c = StandbyContext.parse(items("P4242", "Ardrecv", "A9000", "Asecret key", "A",
                "F0 pipe 0 -", "F1 reg 17 a", "F2 tty 0 -", "T/dev/pts/3"));
        assertThat(c.pid()).isEqualTo(4242);
        assertThat(c.argv()).containsExactly("rdrecv", "9000", "secret key", "");
        assertThat(c.fds()).containsExactly(new Fd(0, Kind.PIPE, 0, false), new Fd(1, Kind.REG, 17, true),
                new Fd(2, Kind.TTY, 0, false));
        assertThat(c.tty()).isEqualTo("/dev/pts/3");
    }

    @Test
    void noTerminalItemMeansNoTerminal() {
        StandbyContext c = StandbyContext.parse(items("P77", "Ardflux", "F0 chr 0 -", "F1 blk 0 -", "F2 reg 0 a"));
        assertThat(c.tty()).isNull();
        assertThat(c.fds()).extracting(Fd::kind).containsExactly(Kind.CHR, Kind.BLK, Kind.REG);
    }

    @Test
    void argumentsKeepTheirBytesUtf8AndNewlines() {
        StandbyContext c = StandbyContext.parse(items("P77", "Ardcp", "Afile näme\nwith a newline",
                "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"));
        assertThat(c.argv()).containsExactly("rdcp", "file näme\nwith a newline");
    }

    @Test
    void malformedContextsAreRefused() {
        List<byte[]> bad = List.of(
                new byte[0],
                "P1\0Ardsend\0F0 pipe 0 -\0F1 pipe 0 -\0F2 pipe 0 -".getBytes(StandardCharsets.UTF_8),   // no final NUL
                items("Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"),              // no pid
                items("P12", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"),                  // no tool
                items("P12", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -"),                      // fd 2 missing
                items("P12", "Ardsend", "F1 pipe 0 -", "F0 pipe 0 -", "F2 pipe 0 -"),       // out of order
                items("P12", "Ardsend", "F0 sock 0 -", "F1 pipe 0 -", "F2 pipe 0 -"),       // a socket
                items("P12", "Ardsend", "F0 pipe -1 -", "F1 pipe 0 -", "F2 pipe 0 -"),      // negative offset
                items("P12", "Ardsend", "F0 pipe 0 x", "F1 pipe 0 -", "F2 pipe 0 -"),       // append flag
                items("P12", "P13", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"), // two pids
                items("Pabc", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"),      // pid not a number
                items("P12", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -", "Ttty"), // not a device path
                items("P12", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -", "Zwhat"), // unknown item
                items("P12", "", "Ardsend", "F0 pipe 0 -", "F1 pipe 0 -", "F2 pipe 0 -"));  // empty item
        for (byte[] b : bad) {
            assertThatThrownBy(() -> StandbyContext.parse(b))
                    .as(new String(b, StandardCharsets.UTF_8).replace('\0', '|'))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
