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
}
