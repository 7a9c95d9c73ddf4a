package io.rdmaflux.protocol;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the sender says about a stream before its data: string attributes, of which a few are
 * well known. The channel itself does not interpret them; codecs and connectors do.
 *
 * @param attributes the attributes, in the order they were set
 */
public record StreamMetadata(Map<String, String> attributes) {

    /** The codec chain the sender applied, such as {@code zstd:1,aes-256-gcm:1}; absent for none. */
    public static final String CODECS = "codecs";
    /** A name for the stream, such as a file name. */
    public static final String NAME = "name";
    /** Payload size in bytes before codecs, when known. */
    public static final String SIZE = "size";

    /**
     * The prefix of the attributes that carry Reactor {@code Context} entries across the wire
     * ({@code FluxSender.carryContext}): {@code context.trace-id} carries the entry
     * {@code trace-id}, which the receiving handler finds in its own {@code Context}.
     */
    public static final String CONTEXT_PREFIX = "context.";

    private static final int MAX_ATTRIBUTES = 256;

    public StreamMetadata {
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    /** Metadata with no attributes. */
    public static StreamMetadata empty() {
        return new StreamMetadata(Map.of());
    }

    /** A copy with one attribute set (a null value removes it). */
    public StreamMetadata with(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(attributes);
        if (value == null) {
            m.remove(key);
        } else {
            m.put(key, value);
        }
        return new StreamMetadata(m);
    }

    /** An attribute, or null. */
    public String get(String key) {
        return attributes.get(key);
    }

    /** A copy that carries one context entry (a null value removes it); see {@link #CONTEXT_PREFIX}. */
    public StreamMetadata withContext(String key, String value) {
        return with(CONTEXT_PREFIX + key, value);
    }

    /** The context entries this metadata carries, their prefix removed, in the order they were set. */
    public Map<String, String> context() {
        Map<String, String> m = new LinkedHashMap<>();
        attributes.forEach((k, v) -> {
            if (k.startsWith(CONTEXT_PREFIX) && k.length() > CONTEXT_PREFIX.length()) {
                m.put(k.substring(CONTEXT_PREFIX.length()), v);
            }
        });
        return Collections.unmodifiableMap(m);
    }

    /** The codec chain, or an empty string for none. */
    public String codecs() {
        return attributes.getOrDefault(CODECS, "");
    }

    /** The stream's size before codecs, or -1 when unknown. */
    public long size() {
        String s = attributes.get(SIZE);
        try {
            return s == null ? -1 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Encodes as: u16 count, then per attribute u16 key length, key, u32 value length, value (UTF-8). */
    public ByteBuffer encode() {
        int size = 2;
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            size += 6 + utf8(e.getKey()).length + utf8(e.getValue()).length;
        }
        if (size > ProtocolVersion.MAX_CONTROL_PAYLOAD - ProtocolVersion.SEAL_TAG_BYTES || attributes.size() > MAX_ATTRIBUTES) {
            throw new IllegalArgumentException("stream metadata too large (" + size + " bytes)");
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort((short) attributes.size());
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            byte[] k = utf8(e.getKey());
            byte[] v = utf8(e.getValue());
            b.putShort((short) k.length).put(k).putInt(v.length).put(v);
        }
        return b.flip();
    }

    /** Decodes a METADATA payload; throws PROTOCOL on malformed input. */
    public static StreamMetadata decode(ByteBuffer b) {
        try {
            int n = Short.toUnsignedInt(b.getShort());
            if (n > MAX_ATTRIBUTES) {
                throw new RdmaFluxException(ErrorCode.PROTOCOL, "too many metadata attributes");
            }
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                byte[] k = new byte[Short.toUnsignedInt(b.getShort())];
                b.get(k);
                int vlen = b.getInt();
                if (vlen < 0 || vlen > b.remaining()) {
                    throw new RdmaFluxException(ErrorCode.PROTOCOL, "malformed metadata");
                }
                byte[] v = new byte[vlen];
                b.get(v);
                m.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8));
            }
            return new StreamMetadata(m);
        } catch (java.nio.BufferUnderflowException e) {
            throw new RdmaFluxException(ErrorCode.PROTOCOL, "malformed metadata");
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
