package io.rdmaflux.connector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A value of the user's own shown with what it holds made visible: the characters escaped are
 * those the one sanitizer replaces ({@link io.rdmaflux.text.RemoteText#isUnsafe}).
 */
class TextTest {

    @Test
    void controlsAndEscapesAreShownAsEscapes() {
        assertThat(Text.escape("a\u001b[31mb\tc\nd\re\u0007\u009b", 100)).isEqualTo("a\\x1b[31mb\\tc\\nd\\re\\x07\\x9b");
    }

    @Test
    void zeroWidthBidiAndPrivateUseAreShownToo() {
        assertThat(Text.escape("a\u200bb\u200dc\ufeffd", 100)).isEqualTo("a\\u200bb\\u200dc\\ufeffd");
        assertThat(Text.escape("x\u202ey\u2067z\u061c", 100)).isEqualTo("x\\u202ey\\u2067z\\u061c");
        assertThat(Text.escape("p\ue000q\uf8ffr\udb80\udc00", 100)).isEqualTo("p\\ue000q\\uf8ffr\\uf0000");
        assertThat(Text.escape("ünïcödé ☃ \ud83d\ude00", 100)).isEqualTo("ünïcödé ☃ \ud83d\ude00");
    }

    @Test
    void longValuesAreCut() {
        assertThat(Text.escape("x".repeat(50), 10)).isEqualTo("x".repeat(10) + "\u2026");
    }
}
