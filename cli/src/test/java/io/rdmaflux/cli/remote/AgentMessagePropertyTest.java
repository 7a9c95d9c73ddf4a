package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded-random properties of the agent protocol's messages, what a remote host sends: every
 * message type, with random field values in their ranges and hostile strings, goes through
 * {@code toLine} and {@link AgentMessage#parse} unchanged; a field outside its range is refused;
 * a mutated or random line is refused with an {@link IllegalArgumentException} of one line, or
 * read as a message whose fields are in their ranges, never another exception. Every failure
 * names the seed and the line.
 */
class AgentMessagePropertyTest {

    private static final Set<String> TYPES = Set.of("hello", "job", "connect", "listening", "started", "progress",
            "done");

    static String text(SplittableRandom r) {
        return JsonPropertyTest.hostileString(r);
    }

    /** A hostile string, or one that looks like a line of the protocol itself. */
    static String nastyText(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> "\"},{\"type\":\"done\",\"status\":0}\n" + AgentMessage.HELLO_START;
            case 1 -> "x".repeat(r.nextInt(3000));
            default -> text(r);
        };
    }

    static long count(SplittableRandom r) {
        return switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> Long.MAX_VALUE;
            case 2 -> r.nextInt(1_000_000);
            default -> r.nextLong(Long.MAX_VALUE);
        };
    }

    static int inRange(SplittableRandom r, int min, int max) {
        return switch (r.nextInt(4)) {
            case 0 -> min;
            case 1 -> max;
            default -> (int) r.nextLong(min, (long) max + 1);
        };
    }

    static AgentMessage message(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0 -> new AgentMessage.Hello(inRange(r, 0, Integer.MAX_VALUE), r.nextBoolean() ? nastyText(r) : null,
                    r.nextBoolean() ? nastyText(r) : null, r.nextBoolean() ? nastyText(r) : null,
                    r.nextBoolean() ? nastyText(r) : null, r.nextBoolean() ? nastyText(r) : null);
            case 1 -> {
                Map<String, Object> pipeline = JsonPropertyTest.object(r, r.nextInt(4));
                if (r.nextBoolean()) {
                    pipeline.put("sink", Map.of("type", "send", "key", nastyText(r)));
                }
                yield new AgentMessage.Job(pipeline, inRange(r, 0, Integer.MAX_VALUE), r.nextBoolean(),
                        r.nextBoolean());
            }
            case 2 -> new AgentMessage.Connect(nastyText(r), inRange(r, 0, 65535));
            case 3 -> {
                List<String> transports = new ArrayList<>();
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    transports.add(nastyText(r));
                }
                yield new AgentMessage.Listening(inRange(r, 1, 65535), transports);
            }
            case 4 -> new AgentMessage.Started();
            case 5 -> new AgentMessage.Progress(count(r), r.nextBoolean() ? -1 : count(r), r.nextBoolean() ? -1 : count(r),
                    r.nextBoolean() ? -1 : count(r), r.nextBoolean() ? -1 : count(r), r.nextBoolean() ? -1 : count(r),
                    r.nextBoolean() ? -1 : count(r), r.nextBoolean() ? -1 : count(r));
            case 6 -> {
                List<String> failures = new ArrayList<>();
                int n = r.nextInt(4) == 0 ? r.nextInt(AgentMessage.Done.MAX_FAILURES + 2) : 0;
                for (int i = 0; i < n; i++) {
                    failures.add(nastyText(r));
                }
                yield new AgentMessage.Done(inRange(r, 0, 255), count(r), r.nextBoolean() ? nastyText(r) : null,
                        failures, r.nextBoolean());
            }
            default -> {
                String type = text(r);
                yield new AgentMessage.Unknown(TYPES.contains(type) ? type + "-later" : type);
            }
        };
    }

    /** The message's fields are in the ranges the protocol documents. */
    static void assertInRange(long seed, String line, AgentMessage m) {
        String as = "seed " + seed + ", line " + JsonPropertyTest.show(line) + ", read " + m;
        if (m instanceof AgentMessage.Hello h) {
            assertThat(h.protocol()).as(as).isNotNegative();
        } else if (m instanceof AgentMessage.Job j) {
            assertThat(j.progressInterval()).as(as).isBetween(0L, (long) Integer.MAX_VALUE);
        } else if (m instanceof AgentMessage.Connect c) {
            assertThat(c.host()).as(as).isNotNull();
            assertThat(c.port()).as(as).isBetween(0, 65535);
        } else if (m instanceof AgentMessage.Listening l) {
            assertThat(l.port()).as(as).isBetween(1, 65535);
            assertThat(l.transports()).as(as).doesNotContainNull();
        } else if (m instanceof AgentMessage.Progress p) {
            assertThat(p.bytes()).as(as).isNotNegative();
            for (long n : new long[] {p.files(), p.fileBytes(), p.keptFiles(), p.totalFiles(), p.totalBytes()}) {
                assertThat(n).as(as).isGreaterThanOrEqualTo(-1);
            }
        } else if (m instanceof AgentMessage.Done d) {
            assertThat(d.status()).as(as).isBetween(0, 255);
            assertThat(d.bytes()).as(as).isNotNegative();
            assertThat(d.failures()).as(as).doesNotContainNull();
        } else if (m instanceof AgentMessage.Unknown u) {
            assertThat(TYPES).as(as).doesNotContain(u.type());
        } else {
            assertThat(m).as(as).isInstanceOf(AgentMessage.Started.class);
        }
    }

    /** Parses a line: a message in range (that reads back the same from its own line), or null for a refusal of one line. */
    static AgentMessage parse(long seed, String line) {
        AgentMessage m;
        try {
            m = AgentMessage.parse(line);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).as("seed %d, line %s", seed, JsonPropertyTest.show(line))
                    .isNotBlank().doesNotContain("\n", "\r", "\u2028", "\u2029");
            return null;
        } catch (RuntimeException | StackOverflowError e) {
            return fail("seed %d, line %s: %s", seed, JsonPropertyTest.show(line), e);
        }
        assertInRange(seed, line, m);
        if (!(m instanceof AgentMessage.Listening)) {   // Listening reads any transport as its text
            assertThat(AgentMessage.parse(m.toLine())).as("seed %d, line %s", seed, JsonPropertyTest.show(line))
                    .isEqualTo(m);
        }
        return m;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void everyMessageReadsBackFromItsLine(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 5000; i++) {
            AgentMessage m = message(r);
            String line = m.toLine();
            assertThat(line).as("seed %d, case %d, message %s", seed, i, m)
                    .doesNotContain("\n", "\r", "\u2028", "\u2029").hasSizeLessThan(AgentMessage.MAX_LINE);
            assertThat(parse(seed, line)).as("seed %d, case %d, line %s", seed, i, JsonPropertyTest.show(line))
                    .isEqualTo(m);
            if (m instanceof AgentMessage.Hello) {
                assertThat(line).startsWith(AgentMessage.HELLO_START);
            }
        }
    }

    /** Each numeric field and where it may go: key, lowest, highest. */
    private static final Map<String, List<Object[]>> RANGES = Map.of(
            "hello", List.<Object[]>of(new Object[] {"protocol", 0L, (long) Integer.MAX_VALUE}),
            "job", List.<Object[]>of(new Object[] {"progress-interval", 0L, (long) Integer.MAX_VALUE}),
            "connect", List.<Object[]>of(new Object[] {"port", 0L, 65535L}),
            "listening", List.<Object[]>of(new Object[] {"port", 1L, 65535L}),
            "progress", List.of(new Object[] {"bytes", 0L, Long.MAX_VALUE}, new Object[] {"files", 0L, Long.MAX_VALUE},
                    new Object[] {"total-bytes", 0L, Long.MAX_VALUE}),
            "done", List.of(new Object[] {"status", 0L, 255L}, new Object[] {"bytes", 0L, Long.MAX_VALUE}));

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void aFieldOutsideItsRangeOrOfAnotherTypeIsRefused(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> types = List.copyOf(new java.util.TreeSet<>(RANGES.keySet()));
        for (int i = 0; i < 3000; i++) {
            AgentMessage valid;
            String type = types.get(r.nextInt(types.size()));
            do {
                valid = message(r);
            } while (!Json.parseObject(valid.toLine()).get("type").equals(type));
            Map<String, Object> m = new LinkedHashMap<>(Json.parseObject(valid.toLine()));
            Object[] field = RANGES.get(type).get(r.nextInt(RANGES.get(type).size()));
            long min = (Long) field[1];
            long max = (Long) field[2];
            Object bad = switch (r.nextInt(6)) {
                case 0 -> min - 1 - r.nextLong(1000);
                case 1 -> min == Long.MIN_VALUE ? "x" : r.nextLong(Long.MIN_VALUE, min);
                case 2 -> max == Long.MAX_VALUE ? 1.5 : max + 1 + r.nextLong(Long.MAX_VALUE - max);
                case 3 -> (double) min + 0.5;
                case 4 -> String.valueOf(min);
                default -> List.of(true, Map.of(), List.of()).get(r.nextInt(3));
            };
            m.put((String) field[0], bad);
            String line = Json.write(m);
            assertThat(parse(seed, line)).as("seed %d, case %d, line %s", seed, i, JsonPropertyTest.show(line)).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void mutatedLinesAreRefusedWithOneLineOrReadInRange(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 5000; i++) {
            String line = message(r).toLine();
            if (line.length() > 400) {
                continue;
            }
            int mutations = 1 + r.nextInt(r.nextInt(4) == 0 ? 6 : 1);
            for (int k = 0; k < mutations; k++) {
                line = JsonPropertyTest.mutate(r, line);
            }
            parse(seed, line);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void everyTruncationOfALineIsRefused(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 300; i++) {
            String line = message(r).toLine();
            for (int end = 0; end < Math.min(line.length(), 500); end++) {
                String prefix = line.substring(0, end);
                assertThat(parse(seed, prefix)).as("seed %d, case %d, line %s", seed, i, JsonPropertyTest.show(prefix))
                        .isNull();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomBytesAndFieldsAreRefusedWithOneLineOrReadInRange(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> keys = List.of("type", "protocol", "version", "nonce", "pipeline", "progress-interval", "verbose",
                "host", "port", "transports", "bytes", "files", "status", "message", "failures", "reported-by-peer");
        List<String> types = new ArrayList<>(TYPES);
        types.sort(null);
        for (int i = 0; i < 5000; i++) {
            String line;
            if (r.nextInt(4) == 0) {
                byte[] bytes = new byte[r.nextInt(60)];
                r.nextBytes(bytes);
                line = new String(bytes, StandardCharsets.UTF_8);
            } else {
                // A well-formed object of the protocol's keys, with values of any kind.
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", r.nextInt(5) == 0 ? JsonPropertyTest.value(r, 1) : types.get(r.nextInt(types.size())));
                int n = r.nextInt(6);
                for (int k = 0; k < n; k++) {
                    m.put(keys.get(r.nextInt(keys.size())), JsonPropertyTest.value(r, 2));
                }
                line = Json.write(m);
            }
            parse(seed, line);
        }
    }
}
