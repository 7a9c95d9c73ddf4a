package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShellWordsTest {

    @Test
    void splitsAsRsyncSplitsItsDashE() {
        assertThat(ShellWords.split("ssh")).containsExactly("ssh");
        assertThat(ShellWords.split("  ssh  -F\tcfg  ")).containsExactly("ssh", "-F", "cfg");
        assertThat(ShellWords.split("ssh -F '/my configs/ssh config' -o \"ProxyJump=a b\""))
                .containsExactly("ssh", "-F", "/my configs/ssh config", "-o", "ProxyJump=a b");
        assertThat(ShellWords.split("ssh -o 'It''s' \"say \"\"hi\"\"\"")).containsExactly("ssh", "-o", "It's", "say \"hi\"");
        assertThat(ShellWords.split("a'b c'd e")).containsExactly("ab cd", "e");
        assertThat(ShellWords.split("ssh ''")).containsExactly("ssh", "");
        assertThat(ShellWords.split("C:\\ssh\\ssh.exe")).containsExactly("C:\\ssh\\ssh.exe");
    }

    @Test
    void anUnterminatedQuoteIsAnError() {
        assertThatThrownBy(() -> ShellWords.split("ssh -F 'oops")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unterminated single quote");
    }

    @Test
    void quotedWordsComeBackWholeFromARealShell() throws Exception {
        List<String> words = List.of("plain", "with space", "it's", "\"dq\"", "-leading-dash", "$HOME", "`id`",
                "a\\b", "ünïcödé ☃", "*", "", "new\nline", "semi;colon|pipe&amp");
        String script = "for a in " + ShellWords.join(words) + "; do printf '%s\\0' \"$a\"; done";
        Process p = new ProcessBuilder("/bin/sh", "-c", script).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(out.split("\0", -1)).containsExactlyElementsOf(concat(words, ""));
        assertThat(ShellWords.quote("plain-word_1.2/x")).isEqualTo("plain-word_1.2/x");
    }

    private static List<String> concat(List<String> words, String last) {
        java.util.ArrayList<String> l = new java.util.ArrayList<>(words);
        l.add(last);
        return l;
    }
}
