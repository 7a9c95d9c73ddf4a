package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The edit distance behind "did you mean": Levenshtein with a swap of neighbours as one edit. */
class DidYouMeanTest {

    @Test
    void distances() {
        assertThat(DidYouMean.distance("", "")).isZero();
        assertThat(DidYouMean.distance("", "abc")).isEqualTo(3);
        assertThat(DidYouMean.distance("path", "path")).isZero();
        assertThat(DidYouMean.distance("pth", "path")).isEqualTo(1);
        assertThat(DidYouMean.distance("paths", "path")).isEqualTo(1);
        assertThat(DidYouMean.distance("pach", "path")).isEqualTo(1);
        assertThat(DidYouMean.distance("fiel", "file")).as("one swap").isEqualTo(1);
        assertThat(DidYouMean.distance("fsnyc", "fsync")).as("one swap").isEqualTo(1);
        assertThat(DidYouMean.distance("ab", "ba")).as("one swap").isEqualTo(1);
        assertThat(DidYouMean.distance("abc", "cba")).isEqualTo(2);
        assertThat(DidYouMean.distance("kitten", "sitting")).isEqualTo(3);
    }

    @Test
    void closestIsWithinTheLimitForTheWordsLength() {
        List<String> keys = List.of("path", "fsync", "append");
        assertThat(DidYouMean.closest("fiel", List.of("file", "stdin"))).isEqualTo("file");
        assertThat(DidYouMean.closest("pth", keys)).isEqualTo("path");
        assertThat(DidYouMean.closest("pt", keys)).as("two edits, short word").isNull();
        assertThat(DidYouMean.closest("apnd", keys)).as("two edits, short word").isNull();
        assertThat(DidYouMean.closest("apend", keys)).isEqualTo("append");
        assertThat(DidYouMean.closest("xpxend", keys)).isEqualTo("append");
        assertThat(DidYouMean.closest("xpxexd", keys)).as("three edits").isNull();
        assertThat(DidYouMean.closest("colour", keys)).isNull();
        assertThat(DidYouMean.closest("anything", List.of())).isNull();
    }

    /**
     * Seeded random words: the distance is a metric (zero only for equal words, symmetric, at
     * most the longer length), one neighbour swap costs exactly 1, and one deletion exactly 1.
     */
    @Test
    void metricPropertiesOverRandomWords() {
        for (long seed : new long[] {1, 22, 7691, 0xC0FFEE}) {
            Random random = new Random(seed);
            for (int i = 0; i < 2_000; i++) {
                String a = word(random);
                String b = word(random);
                String what = "seed " + seed + ": '" + a + "' / '" + b + "'";
                int d = DidYouMean.distance(a, b);
                assertThat(DidYouMean.distance(b, a)).as(what).isEqualTo(d);
                assertThat(d == 0).as(what).isEqualTo(a.equals(b));
                assertThat(d).as(what).isBetween(Math.abs(a.length() - b.length()), Math.max(a.length(), b.length()));
                if (a.length() >= 2) {
                    int at = random.nextInt(a.length() - 1);
                    if (a.charAt(at) != a.charAt(at + 1)) {
                        String swapped = a.substring(0, at) + a.charAt(at + 1) + a.charAt(at) + a.substring(at + 2);
                        assertThat(DidYouMean.distance(a, swapped)).as(what + ", swap at " + at).isEqualTo(1);
                    }
                    int cut = random.nextInt(a.length());
                    String shorter = a.substring(0, cut) + a.substring(cut + 1);
                    assertThat(DidYouMean.distance(a, shorter)).as(what + ", cut at " + cut).isEqualTo(1);
                }
            }
        }
    }

    /** A word of 0 to 9 letters from a small alphabet, so that letters repeat and words collide. */
    private static String word(Random random) {
        StringBuilder w = new StringBuilder();
        for (int n = random.nextInt(10); n > 0; n--) {
            w.append((char) ('a' + random.nextInt(4)));
        }
        return w.toString();
    }
}
