package io.rdmaflux.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.ProtocolVersion;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.text.RemoteText;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded-random properties of the control frame payloads ({@link ControlFrames}, {@link Hello})
 * and of {@link StreamMetadata}'s layout (issue 22, property tests): encode then decode gives
 * the value back, and hostile payloads (random bytes, truncations, bit flips, length fields
 * overwritten with large values) either decode to a valid value or are refused with
 * {@link RdmaFluxException} and the code each decoder documents (PROTOCOL; VERSION as well for
 * HELLO), with a one-line message: never an IndexOutOfBounds, BufferUnderflow,
 * NegativeArraySize or OutOfMemory error, and never an allocation that a length field, rather
 * than the payload's size, decides. Failures name the seed and the payload in hex.
 */
class ControlFramesPropertyTest {

    private static final int CASES = 3_000;
    /** Cases whose allocations are not counted: the first decodes load classes. */
    private static final int WARM_UP = 200;

    /** A decoder under test: what it is called, how it decodes, what its refusals may carry. */
    private record Decoder(String name, Function<ByteBuffer, Object> decode, Set<ErrorCode> refusals) {
    }

    private static final List<Decoder> DECODERS = List.of(
            new Decoder("CREDIT", ControlFramesPropertyTest::credit, Set.of(ErrorCode.PROTOCOL)),
            new Decoder("END", ControlFrames::decodeEnd, Set.of(ErrorCode.PROTOCOL)),
            new Decoder("END_ACK", ControlFrames::decodeEndAck, Set.of(ErrorCode.PROTOCOL)),
            new Decoder("AUTH", ControlFrames::decodeAuth, Set.of(ErrorCode.PROTOCOL)),
            new Decoder("ERROR", ControlFrames::decodeError, Set.of()),
            new Decoder("HELLO", Hello::decode, Set.of(ErrorCode.PROTOCOL, ErrorCode.VERSION)),
            new Decoder("METADATA", StreamMetadata::decode, Set.of(ErrorCode.PROTOCOL)));

    private static Object credit(ByteBuffer b) {
        int n = ControlFrames.decodeCredit(b);
        assertThat(n).as("a decoded credit").isPositive();
        return n;
    }

    // ------------------------------------------------------------------ generators

    /** A string of random code points: ASCII, Latin, CJK, supplementary (emoji), controls. */
    private static String text(Random r, int maxChars) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(maxChars + 1);
        while (b.length() < n) {
            int cp = switch (r.nextInt(6)) {
                case 0, 1 -> 0x20 + r.nextInt(0x5f);
                case 2 -> 0xa0 + r.nextInt(0x500);
                case 3 -> 0x3040 + r.nextInt(0x6000);
                case 4 -> 0x1f300 + r.nextInt(0x300);
                default -> r.nextInt(0x20);
            };
            b.appendCodePoint(cp);
        }
        return b.toString();
    }

    private static StreamMetadata metadata(Random r) {
        Map<String, String> m = new LinkedHashMap<>();
        int n = r.nextInt(10) == 0 ? r.nextInt(257) : r.nextInt(6);
        int budget = ProtocolVersion.MAX_CONTROL_PAYLOAD - ProtocolVersion.SEAL_TAG_BYTES - 2;
        for (int i = 0; i < n; i++) {
            String k = r.nextInt(8) == 0 ? "" : text(r, 12);
            String v = r.nextInt(20) == 0 ? text(r, 6000) : text(r, 40);
            int cost = 6 + k.getBytes(StandardCharsets.UTF_8).length + v.getBytes(StandardCharsets.UTF_8).length;
            if (cost > budget || m.containsKey(k)) {
                continue;
            }
            budget -= cost;
            m.put(k, v);
        }
        return new StreamMetadata(m);
    }

    private static Hello hello(Random r) {
        byte[] nonce = new byte[ProtocolVersion.NONCE_BYTES];
        r.nextBytes(nonce);
        return new Hello(r.nextBoolean() ? Hello.Role.SENDER : Hello.Role.RECEIVER, nonce,
                1 + r.nextInt(Integer.MAX_VALUE), 1 + r.nextInt(Integer.MAX_VALUE));
    }

    private static ErrorCode errorCode(Random r) {
        ErrorCode[] all = ErrorCode.values();
        return all[r.nextInt(all.length)];
    }

    /** A valid encoding of some frame, for mutation. */
    private static byte[] validPayload(Random r) {
        ByteBuffer b = switch (r.nextInt(6)) {
            case 0 -> ControlFrames.credit(1 + r.nextInt(Integer.MAX_VALUE));
            case 1 -> ControlFrames.end(r.nextLong(), r.nextInt());
            case 2 -> ControlFrames.endAck(r.nextLong());
            case 3 -> ControlFrames.error(errorCode(r), text(r, 100));
            case 4 -> hello(r).encode();
            default -> metadata(r).encode();
        };
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    /** A hostile payload: random bytes, or a valid one truncated, bit-flipped, or with a length field made large. */
    private static byte[] hostile(Random r) {
        switch (r.nextInt(5)) {
            case 0: {
                byte[] junk = new byte[r.nextInt(r.nextBoolean() ? 16 : 200)];
                r.nextBytes(junk);
                return junk;
            }
            case 1: {
                byte[] v = validPayload(r);
                return Arrays.copyOf(v, r.nextInt(v.length + 1));
            }
            case 2: {
                byte[] v = validPayload(r);
                for (int i = 1 + r.nextInt(3); i > 0 && v.length > 0; i--) {
                    v[r.nextInt(v.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return v;
            }
            case 3: {
                // a run of 0xff or 0x7f (the largest u16/u32 and s32 lengths) somewhere in a valid payload
                byte[] v = validPayload(r);
                if (v.length > 0) {
                    int at = r.nextInt(v.length);
                    int len = Math.min(v.length - at, 1 + r.nextInt(4));
                    byte fill = r.nextBoolean() ? (byte) 0xff : (byte) 0x7f;
                    Arrays.fill(v, at, at + len, fill);
                    if (fill == 0x7f && at + 1 < v.length) {
                        v[at + 1] = (byte) 0xff;
                    }
                }
                return v;
            }
            default: {
                // a valid HELLO's head (so decoding gets past the magic and version) and junk behind it
                byte[] head = Arrays.copyOf(hello(r).encode().array(), 6 + r.nextInt(48));
                for (int i = 6; i < head.length; i++) {
                    head[i] = (byte) r.nextInt(256);
                }
                return head;
            }
        }
    }

    private static String hex(byte[] a) {
        return a.length > 256 ? HexFormat.of().formatHex(a, 0, 256) + "...(" + a.length + " bytes)" : HexFormat.of().formatHex(a);
    }

    // ------------------------------------------------------------------ round trips

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 22L, 0x5eedL, -3L})
    void fixedLayoutFramesRoundTrip(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES * 3; i++) {
            String where = "seed " + seed + ", case " + i;
            int n = r.nextBoolean() ? 1 + r.nextInt(64) : 1 + r.nextInt(Integer.MAX_VALUE);
            assertThat(ControlFrames.decodeCredit(ControlFrames.credit(n))).as(where + ", credit " + n).isEqualTo(n);
            long bytes = r.nextLong();
            int crc = r.nextInt();
            assertThat(ControlFrames.decodeEnd(ControlFrames.end(bytes, crc))).as(where)
                    .isEqualTo(new ControlFrames.End(bytes, crc));
            assertThat(ControlFrames.decodeEndAck(ControlFrames.endAck(bytes))).as(where).isEqualTo(bytes);
            byte[] proof = new byte[32];
            r.nextBytes(proof);
            assertThat(ControlFrames.decodeAuth(ByteBuffer.wrap(proof))).as(where).isEqualTo(proof);
            Hello h = hello(r);
            Hello back = Hello.decode(h.encode());
            assertThat(back.role()).as(where).isEqualTo(h.role());
            assertThat(back.nonce()).as(where).isEqualTo(h.nonce());
            assertThat(back.frameSize()).as(where).isEqualTo(h.frameSize());
            assertThat(back.receiveSlots()).as(where).isEqualTo(h.receiveSlots());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {2L, 23L, 0xfeedL, -4L})
    void errorFramesCarryTheCodeAndTheSanitizedMessage(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES; i++) {
            ErrorCode code = errorCode(r);
            String message = r.nextInt(10) == 0 ? text(r, 3000) : text(r, 200);
            RdmaFluxException e = ControlFrames.decodeError(ControlFrames.error(code, message));
            // model: the first 4000 UTF-8 bytes of the message, through the one sanitizer
            byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
            String sent = new String(utf8, 0, Math.min(utf8.length, 4000), StandardCharsets.UTF_8);
            String where = "seed " + seed + ", case " + i + ", " + code;
            assertThat(e.code()).as(where).isEqualTo(code);
            assertThat(e.getMessage()).as(where).isEqualTo(RemoteText.sanitize(sent));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3L, 24L, 0xbeefL, -5L})
    void metadataRoundTrips(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES; i++) {
            StreamMetadata m = metadata(r);
            ByteBuffer encoded = m.encode();
            int length = encoded.remaining();
            StreamMetadata back = StreamMetadata.decode(encoded);
            String where = "seed " + seed + ", case " + i + ", " + m.attributes().size() + " attributes, " + length + " bytes";
            assertThat(back).as(where).isEqualTo(m);
            assertThat(new ArrayList<>(back.attributes().keySet())).as(where + ": order")
                    .isEqualTo(new ArrayList<>(m.attributes().keySet()));
            assertThat(encoded.remaining()).as(where + ": the whole payload is read").isZero();
            assertThat(length).as(where).isLessThanOrEqualTo(ProtocolVersion.MAX_CONTROL_PAYLOAD - ProtocolVersion.SEAL_TAG_BYTES);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {4L, 25L})
    void metadataTooLargeToSendIsRefusedWhenEncoded(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < 200; i++) {
            StreamMetadata m = StreamMetadata.empty();
            if (r.nextBoolean()) {
                m = m.with("k", "x".repeat(ProtocolVersion.MAX_CONTROL_PAYLOAD - ProtocolVersion.SEAL_TAG_BYTES - 8
                        + 1 + r.nextInt(200_000)));
            } else {
                for (int a = 0; a < 257 + r.nextInt(100); a++) {
                    m = m.with("k" + a, "");
                }
            }
            StreamMetadata big = m;
            assertThatThrownBy(big::encode).as("seed " + seed + ", case " + i).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("stream metadata too large");
        }
    }

    // ------------------------------------------------------------------ hostile input

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5L, 26L, 0xcafeL, -6L, 99L})
    void hostilePayloadsDecodeToValidValuesOrAreRefusedWithTheDocumentedCode(long seed) {
        Random r = new Random(seed);
        com.sun.management.ThreadMXBean threads = allocationCounter();
        for (int i = 0; i < CASES * 2; i++) {
            byte[] payload = hostile(r);
            for (Decoder d : DECODERS) {
                String where = "seed " + seed + ", case " + i + ", " + d.name() + " of " + hex(payload);
                ByteBuffer b = ByteBuffer.wrap(payload).asReadOnlyBuffer();
                long before = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
                Object value = null;
                Throwable thrown = null;
                try {
                    value = d.decode().apply(b);
                } catch (Throwable t) {
                    thrown = t;
                }
                long allocated = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes() - before;
                if (i >= WARM_UP) {
                    // what a decoder allocates follows the payload's size, not a length field in it:
                    // at most one u16-sized (64 KiB) buffer, an exception, and a few times the payload
                    assertThat(allocated).as(where + ": bytes allocated").isLessThan(256 * 1024 + 16L * payload.length);
                }
                if (thrown instanceof RdmaFluxException e) {
                    assertThat(d.refusals()).as(where + ": refused with " + e.code()).contains(e.code());
                    assertOneLine(e.getMessage(), where);
                    continue;
                }
                if (thrown != null) {
                    throw new AssertionError(where + ": threw " + thrown, thrown);
                }
                assertValid(value, where);
            }
        }
    }

    private static void assertValid(Object value, String where) {
        if (value instanceof Hello h) {
            assertThat(h.role()).as(where).isNotNull();
            assertThat(h.nonce()).as(where).hasSize(ProtocolVersion.NONCE_BYTES);
            assertThat(h.frameSize()).as(where).isPositive();
            assertThat(h.receiveSlots()).as(where).isPositive();
        } else if (value instanceof StreamMetadata m) {
            assertThat(m.attributes()).as(where).hasSizeLessThanOrEqualTo(256).doesNotContainKey(null).doesNotContainValue(null);
        } else if (value instanceof RdmaFluxException e) {
            // an ERROR frame always decodes, to an exception with a known code and a printable message
            // (which may be empty: the layout allows a zero-length message, and the peer's words are kept as sent)
            assertThat(e.code()).as(where).isNotNull();
            assertThat(e.getMessage()).as(where + ": message").isNotNull().doesNotContain("\n").doesNotContain("\r");
            assertThat(e.getMessage().codePoints().filter(RemoteText::isUnsafe).toArray()).as(where + ": unsafe characters").isEmpty();
            assertThat(e.getMessage().length()).as(where).isLessThanOrEqualTo(RemoteText.MAX_LENGTH + 3);
        } else if (value instanceof byte[] proof) {
            assertThat(proof).as(where).hasSize(32);
        } else {
            assertThat(value).as(where).isInstanceOfAny(Integer.class, Long.class, ControlFrames.End.class);
        }
    }

    private static void assertOneLine(String message, String where) {
        assertThat(message).as(where + ": message").isNotBlank().doesNotContain("\n").doesNotContain("\r");
    }

    /** The JVM's per-thread allocation counter, or null where it has none (then allocation is not checked). */
    private static com.sun.management.ThreadMXBean allocationCounter() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()) {
            t.setThreadAllocatedMemoryEnabled(true);
            return t;
        }
        return null;
    }
}
