package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RemoteTextTest {

    @Test
    void removesWhatATerminalWouldObey() {
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
    void boundsTheLength() {
        String s = RemoteText.sanitize("x".repeat(100_000));
        assertThat(s).hasSize(RemoteText.MAX_LENGTH + 3).endsWith("...");
    }
}
