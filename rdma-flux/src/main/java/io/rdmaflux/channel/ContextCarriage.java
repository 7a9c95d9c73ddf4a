package io.rdmaflux.channel;

import io.rdmaflux.protocol.StreamMetadata;
import java.util.List;
import java.util.Map;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Carries chosen Reactor {@code Context} entries across the wire: the sender writes them into
 * the stream's METADATA ({@link StreamMetadata#CONTEXT_PREFIX}), the receiver puts them into its
 * handler's Context. Values travel as text (their {@code toString()}); what crosses is sealed
 * with the rest of the METADATA, so only a sender that knows the key can set them.
 */
final class ContextCarriage {

    private ContextCarriage() {
    }

    /** {@code metadata} with the entries of {@code context} named in {@code keys} (those present). */
    static StreamMetadata carry(StreamMetadata metadata, ContextView context, List<String> keys) {
        StreamMetadata carried = metadata;
        for (String key : keys) {
            Object value = context.getOrDefault(key, null);
            if (value != null) {
                carried = carried.withContext(key, value.toString());
            }
        }
        return carried;
    }

    /** The entries {@code metadata} carries, as a Context for the receiving handler. */
    static Context restore(StreamMetadata metadata) {
        Map<String, String> entries = metadata.context();
        return entries.isEmpty() ? Context.empty() : Context.of(entries);
    }
}
