package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {

    @Test
    void roundTripsEveryKindOfValue() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a \"quoted\" \\ path\nwith\ttabs, \u0001 control, ünïcödé and \ud83d\ude00");
        m.put("n", -42L);
        m.put("big", Long.MAX_VALUE);
        m.put("d", 1.5);
        m.put("t", true);
        m.put("f", false);
        m.put("z", null);
        m.put("list", List.of(1L, "two", List.of(), Map.of()));
        m.put("nested", Map.of("k", Map.of("k", "v")));
        String line = Json.write(m);
        assertThat(line).doesNotContain("\n").doesNotContain("\u0001");
        assertThat(Json.parseObject(line)).isEqualTo(m);
    }

    @Test
    void randomStringsSurviveAndStayOnOneLine() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            StringBuilder b = new StringBuilder();
            int n = r.nextInt(40);
            for (int j = 0; j < n; j++) {
                b.append((char) r.nextInt(0x10000));
            }
            Map<String, Object> m = Map.of("v", b.toString());
            String line = Json.write(m);
            assertThat(line).doesNotContain("\n", "\r", "\u2028");
            assertThat(Json.parseObject(line)).isEqualTo(m);
        }
    }

    @Test
    void readsWhatOtherWritersWrite() {
        assertThat(Json.parseObject(" { \"a\" : [ 1 , 2.5e3, \"\\u00e9\\/\" ] , \"b\":{} } "))
                .isEqualTo(Map.of("a", List.of(1L, 2500.0, "é/"), "b", Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "\"x\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x",
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":\"unterminated}",
        "{\"a\":1,\"a\":2}", "{a:1}", "{\"a\":\"\u0001\"}", "{\"a\":99999999999999999999}", "{\"a\":-}",
        "{\"a\":\"\\u+041\"}", "{\"a\":\"\\u-001\"}", "{\"a\":\"\\u\u0664\u0661\u0660\u0660\"}", "{\"a\":\"\\u00g1\"}",
        "{\"a\":1E400}", "{\"a\":-1e999}"})
    void refusesWhatIsNotAWellFormedObject(String text) {
        assertThatThrownBy(() -> Json.parseObject(text)).isInstanceOf(Json.JsonException.class)
                .hasMessageStartingWith("malformed JSON");
    }

    /** Found by JsonPropertyTest: a raw line break after a backslash, or in a duplicate key, broke the message's line. */
    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":\"\\\n\"}", "{\"a\\r\":\"\\\r\"}", "{\"a\\n\":1,\"a\\n\":2}",
        "{\"\\u2028\":1,\"\\u2028\":2}"})
    void refusesWithAMessageOfOneLine(String text) {
        assertThatThrownBy(() -> Json.parseObject(text)).isInstanceOf(Json.JsonException.class)
                .hasMessageStartingWith("malformed JSON").message().doesNotContain("\n", "\r", "\u2028");
    }

    @Test
    void boundsNesting() {
        String deep = "{\"a\":".repeat(Json.MAX_DEPTH + 2) + "1" + "}".repeat(Json.MAX_DEPTH + 2);
        assertThatThrownBy(() -> Json.parseObject(deep)).hasMessageContaining("nested deeper");
        List<Object> l = new ArrayList<>();
        assertThat(Json.parseObject(Json.write(Map.of("l", l)))).isEqualTo(Map.of("l", l));
    }
}
