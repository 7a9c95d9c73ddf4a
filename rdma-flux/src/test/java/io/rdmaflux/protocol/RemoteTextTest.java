package io.rdmaflux.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A peer's text, made safe for a terminal: one line, bounded, no controls or escapes. */
class RemoteTextTest {

    @Test
    void escapeSequencesControlsAndBidiOverridesAreReplaced() {
        assertThat(RemoteText.sanitize("a\u001b[1;31mred\u001b[0m\u001b]0;title\u0007\u0000\u007f\u009b\u200f\u2028\u2066z"))
                .isEqualTo("a?red????????z");
        assertThat(RemoteText.sanitize("x\u001b]8;;http://evil\u001b\\link")).isEqualTo("x?link");
    }

    @Test
    void lineBreaksAndTabsBecomeSpacesAndPlainTextIsKept() {
        assertThat(RemoteText.sanitize("disk full:\n\tno space\r\nleft on /dev/sda1 (répertoire, ファイル, 𝄞)"))
                .isEqualTo("disk full:  no space  left on /dev/sda1 (répertoire, ファイル, 𝄞)");
        assertThat(RemoteText.sanitize(null)).isEmpty();
    }

    @Test
    void longTextIsCut() {
        String s = RemoteText.sanitize("x".repeat(10_000));
        assertThat(s).hasSize(RemoteText.MAX_LENGTH + 3).endsWith("...");
        assertThat(RemoteText.sanitize("y".repeat(RemoteText.MAX_LENGTH))).hasSize(RemoteText.MAX_LENGTH);
    }

    // Also what rdcp and rdpipe print of another host's ssh, agent and commands.
    @Test
    void removesWhatATerminalWouldObeyInRemoteHostsText() {
        assertThat(RemoteText.sanitize("ok\u001b[31mred\u001b[0m")).isEqualTo("ok?red?");
        assertThat(RemoteText.sanitize("a\u001b]0;title\u0007b")).isEqualTo("a?b");
        assertThat(RemoteText.sanitize("x\u001b]8;;http://evil\u001b\\y")).isEqualTo("x?y");
        assertThat(RemoteText.sanitize("bell\u0007 back\bspace del\u007f c1\u009b")).isEqualTo("bell? back?space del? c1?");
        assertThat(RemoteText.sanitize("two\nlines\r\n")).isEqualTo("two lines");
        assertThat(RemoteText.sanitize("rtl\u202eevil")).isEqualTo("rtl?evil");
        assertThat(RemoteText.sanitize("ünïcödé ☃ \ud83d\ude00")).isEqualTo("ünïcödé ☃ \ud83d\ude00");
        assertThat(RemoteText.sanitize("lone \ud83d")).isEqualTo("lone ?");
        assertThat(RemoteText.sanitize(null)).isEmpty();
    }

    @Test
    void boundsTheLengthOfRemoteHostsText() {
        String s = RemoteText.sanitize("x".repeat(100_000));
        assertThat(s).hasSize(RemoteText.MAX_LENGTH + 3).endsWith("...");
    }
}
