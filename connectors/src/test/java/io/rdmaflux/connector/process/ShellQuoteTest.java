package io.rdmaflux.connector.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Quoting checked against a real {@code /bin/sh}: random argument vectors, quoted, run through
 * {@code printf '%s\0' ...}, must come back exactly. Seeded, so a failure can be replayed; the
 * failing case is printed in the assertion.
 */
class ShellQuoteTest {

    private static final int CASES = 300;

    /** What a shell might treat specially, and what might break a quoter's escaping. */
    private static final String SPECIAL = "'\"\\$`!*?[]{}()<>|&;#~=%^, \t\n\r-./:@+_";

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 22, 4_294_967_311L})
    void randomArgumentsComeBackExactlyFromARealShell(long seed) throws Exception {
        Random random = new Random(seed);
        List<List<String>> cases = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            List<String> args = new ArrayList<>();
            int n = 1 + random.nextInt(4);
            for (int j = 0; j < n; j++) {
                args.add(randomWord(random));
            }
            cases.add(args);
        }
        StringBuilder script = new StringBuilder();
        for (List<String> args : cases) {
            script.append("printf '%s\\0' ").append(ShellQuote.join(args)).append('\n');
        }
        List<String> out = runSh(script.toString());

        int at = 0;
        for (List<String> args : cases) {
            List<String> back = out.subList(Math.min(at, out.size()), Math.min(at + args.size(), out.size()));
            assertThat(back).as("seed %d: %s quoted as %s", seed, show(args), ShellQuote.join(args))
                    .containsExactlyElementsOf(args);
            at += args.size();
        }
        assertThat(at).as("seed %d: every argument and nothing else", seed).isEqualTo(out.size());
    }

    @Test
    void plainWordsStayBareAndTheRestIsSingleQuoted() {
        assertThat(ShellQuote.quote("plain-word_1.2/x@h:%+=,")).isEqualTo("plain-word_1.2/x@h:%+=,");
        assertThat(ShellQuote.quote("")).isEqualTo("''");
        assertThat(ShellQuote.quote("a b")).isEqualTo("'a b'");
        assertThat(ShellQuote.quote("it's")).isEqualTo("'it'\\''s'");
        assertThat(ShellQuote.quote("~root")).isEqualTo("'~root'");
        assertThat(ShellQuote.join(List.of("tar", "c", "my dir"))).isEqualTo("tar c 'my dir'");
        assertThat(ShellQuote.join(List.of())).isEmpty();
    }

    /**
     * A word of up to 12 code points, drawn from the special characters, ASCII, control
     * characters, Latin-1, CJK and astral planes; never NUL (which no argument can hold).
     */
    private static String randomWord(Random random) {
        int length = random.nextInt(13);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(6);
            int cp = switch (kind) {
                case 0, 1 -> SPECIAL.charAt(random.nextInt(SPECIAL.length()));
                case 2 -> 0x20 + random.nextInt(0x5f);
                case 3 -> 1 + random.nextInt(0x1f);
                case 4 -> random.nextBoolean() ? 0x7f + random.nextInt(0x81) : 0x4e00 + random.nextInt(0x100);
                default -> 0x1f300 + random.nextInt(0x100);
            };
            b.appendCodePoint(cp);
        }
        return b.toString();
    }

    /** Runs {@code script} with /bin/sh reading it from stdin (bytes, so no locale is involved); the NUL-ended words it printed. */
    private static List<String> runSh(String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/bin/sh").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream in = p.getOutputStream()) {
            in.write(script.getBytes(StandardCharsets.UTF_8));
        }
        byte[] bytes = out.join();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("sh's status").isZero();
        List<String> words = new ArrayList<>();
        ByteArrayOutputStream word = new ByteArrayOutputStream();
        for (byte x : bytes) {
            if (x == 0) {
                words.add(word.toString(StandardCharsets.UTF_8));
                word.reset();
            } else {
                word.write(x);
            }
        }
        assertThat(word.size()).as("output ends with NUL").isZero();
        return words;
    }

    /** The arguments with their code points, so that invisible ones show in a failure. */
    private static String show(List<String> args) {
        List<String> shown = new ArrayList<>();
        for (String a : args) {
            shown.add(a + " " + Arrays.toString(a.codePoints().mapToObj(Integer::toHexString).toArray()));
        }
        return shown.toString();
    }
}
