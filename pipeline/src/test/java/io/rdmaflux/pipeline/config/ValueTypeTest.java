package io.rdmaflux.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How each option type reads text, refuses bad text, and writes defaults back. */
class ValueTypeTest {

    @Test
    void sizes() {
        ValueType<Long> size = ValueType.size(0, Long.MAX_VALUE);
        assertThat(size.parse("65536")).isEqualTo(65536L);
        assertThat(size.parse("64K")).isEqualTo(64L << 10);
        assertThat(size.parse("4m")).isEqualTo(4L << 20);
        assertThat(size.parse("4MiB")).isEqualTo(4L << 20);
        assertThat(size.parse("4MB")).isEqualTo(4L << 20);
        assertThat(size.parse(" 1G ")).isEqualTo(1L << 30);
        assertThat(size.parse("2T")).isEqualTo(2L << 40);
        assertThat(size.parse("12b")).isEqualTo(12L);
        for (String bad : new String[] {"", "K", "1.5M", "-1", "4X", "1 M B", "99999999999999999999", "9999999999T"}) {
            assertThatThrownBy(() -> size.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        ValueType<Long> frame = ValueType.size(4 << 10, 64 << 20);
        assertThatThrownBy(() -> frame.parse("128M")).isInstanceOf(IllegalArgumentException.class);
        assertThat(frame.description()).isEqualTo("a size from 4K to 64M (such as 64K or 4M)");
        assertThat(frame.format(1L << 20)).isEqualTo("1M");
        assertThat(frame.format(1500L)).isEqualTo("1500");
    }

    @Test
    void sizeUnitsAreAsciiLetters() {
        // Found by ValueTypePropertyTest: lower-casing the text read the Kelvin sign (U+212A) as 'k'.
        for (String bad : new String[] {"64\u212a", "64\u212aiB", "1 \u212aB"}) {
            assertThatThrownBy(() -> ValueType.parseSize(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ValueType.parseSize("64kIb")).isEqualTo(64L << 10);
    }

    @Test
    void durations() {
        ValueType<Duration> d = ValueType.duration();
        assertThat(d.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(d.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.parse("10")).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(d.parse("1H")).isEqualTo(Duration.ofHours(1));
        assertThat(d.parse("0")).isEqualTo(Duration.ZERO);
        for (String bad : new String[] {"", "soon", "-1s", "1.5s", "10 days", "1d"}) {
            assertThatThrownBy(() -> d.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(d.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(d.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(d.format(Duration.ofMinutes(2))).isEqualTo("2m");
        assertThat(d.format(Duration.ZERO)).isEqualTo("0");
    }

    @Test
    void integersBooleansEnumsPathsStrings() throws IOException {
        ValueType<Integer> port = ValueType.integer(1, 65535);
        assertThat(port.parse("7691")).isEqualTo(7691);
        assertThat(port.description()).isEqualTo("an integer 1-65535");
        assertThat(ValueType.integer(-7, 22).description()).isEqualTo("an integer from -7 to 22");
        assertThat(port.parse(" 22 ")).isEqualTo(22);
        assertThat(ValueType.integer(-7, 22).parse("-7")).isEqualTo(-7);
        // ASCII digits only, one rule with sizes: no sign but minus, no other script's digits.
        for (String bad : new String[] {"0", "65536", "abc", "1e3", "99999999999999999999", "+22",
            "\u0667\u0666\u0669\u0661", "\uff17\uff16", "- 7", "0x1f"}) {
            assertThatThrownBy(() -> port.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ValueType.bool().parse("TRUE")).isTrue();
        assertThat(ValueType.bool().parse("false")).isFalse();
        // YAML 1.1's other booleans are not booleans here.
        for (String bad : new String[] {"yes", "no", "on", "off", "1"}) {
            assertThatThrownBy(() -> ValueType.bool().parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ValueType.oneOf("auto", "rdma", "tcp").parse("TCP")).isEqualTo("tcp");
        assertThatThrownBy(() -> ValueType.oneOf("auto", "rdma", "tcp").parse("ib"))
                .isInstanceOf(IllegalArgumentException.class);
        Path home = Home.directory(System.getenv());
        assertThat(ValueType.path().parse("~")).isEqualTo(home);
        assertThat(ValueType.path().parse("~/x/y")).isEqualTo(home.resolve("x/y"));
        assertThat(ValueType.path().parse("a/~b")).isEqualTo(Path.of("a/~b"));
        // ~USER is that user's home, as in a shell (and in scp's host:~USER/dir); no such user: as written.
        Path rootHome = rootHome();
        assertThat(ValueType.path().parse("~root/x")).isEqualTo(rootHome.resolve("x"));
        assertThat(ValueType.path().parse("~root")).isEqualTo(rootHome);
        assertThat(ValueType.path().parse("~no-such-user-19/x")).isEqualTo(Path.of("~no-such-user-19/x"));
        assertThat(ValueType.path().parse("~a b/x")).isEqualTo(Path.of("~a b/x"));
        assertThatThrownBy(() -> ValueType.string().parse("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ValueType.list(ValueType.string()).name()).isEqualTo("list of string");
    }

    @Test
    void tildeIsHomeAsInAShell() throws IOException {
        // $HOME when set (HOME=/other rdflux run ...), else the passwd entry the JVM read.
        assertThat(Home.expand("~/.rdkey", Map.of("HOME", "/home/other"))).isEqualTo(Path.of("/home/other/.rdkey"));
        assertThat(Home.expand("~", Map.of("HOME", "/home/other"))).isEqualTo(Path.of("/home/other"));
        assertThat(Home.expand("~/.rdkey", Map.of())).isEqualTo(Path.of(System.getProperty("user.home"), ".rdkey"));
        assertThat(Home.expand("~/.rdkey", Map.of("HOME", ""))).isEqualTo(Path.of(System.getProperty("user.home"), ".rdkey"));
        assertThat(Home.expand("~root/x", Map.of("HOME", "/home/other"))).isEqualTo(rootHome().resolve("x"));
    }

    /**
     * root's home as this machine has it, read from /etc/passwd (root is always there, whatever
     * else NSS consults); not assumed to be /root, and not asked of getent, which Home itself uses.
     */
    private static Path rootHome() throws IOException {
        for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
            String[] fields = line.split(":", -1);
            if (fields.length >= 7 && fields[0].equals("root")) {
                return Path.of(fields[5]);
            }
        }
        throw new AssertionError("no root in /etc/passwd");
    }

    @Test
    void optionNamesAreKebabCase() {
        assertThat(OptionSpec.required("frame-size", ValueType.string(), "x").name()).isEqualTo("frame-size");
        for (String bad : new String[] {"frameSize", "frame_size", "-x", "x-", "Frame", "a--b", ""}) {
            assertThatThrownBy(() -> OptionSpec.required(bad, ValueType.string(), "x")).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
