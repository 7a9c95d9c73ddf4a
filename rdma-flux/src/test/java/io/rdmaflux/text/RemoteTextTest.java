package io.rdmaflux.text;

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

    // One sanitizer for all remote text: what hides or reorders text goes too, not only controls.
    @Test
    void zeroWidthBidiAndPrivateUseCharactersAreReplaced() {
        assertThat(RemoteText.sanitize("zero\u200bwidth\u200c\u200d\u2060\ufeffend")).isEqualTo("zero?width????end");
        assertThat(RemoteText.sanitize("bidi\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061cend"))
                .isEqualTo("bidi????????????end");
        assertThat(RemoteText.sanitize("pua\ue000\uf8ff\udb80\udc00\udbff\udffdend")).isEqualTo("pua????end");
        assertThat(RemoteText.sanitize("tag\udb40\udc41unassigned\u0378end")).isEqualTo("tag?unassigned?end");
        for (int cp : new int[] {0x200b, 0x200d, 0xfeff, 0x202e, 0x2066, 0x061c, 0xe000, 0xf0000, 0x1b, 0x9b, 0x2028}) {
            assertThat(RemoteText.isUnsafe(cp)).as("U+%04X", cp).isTrue();
        }
        for (int cp : new int[] {'a', ' ', 0xe9, 0x2603, 0x1f600, 0x30d5}) {
            assertThat(RemoteText.isUnsafe(cp)).as("U+%04X", cp).isFalse();
        }
    }

    @Test
    void anotherBoundCutsThere() {
        assertThat(RemoteText.sanitize("abcdefgh", 3)).isEqualTo("abc...");
        assertThat(RemoteText.sanitize("a\u001b[2Jb", 3)).isEqualTo("a?b");
        assertThat(RemoteText.sanitize("x".repeat(2000), 1000)).hasSize(1003);
    }
}
