package io.rdmaflux.pipeline.builtin;

import static io.rdmaflux.pipeline.config.OptionSpec.optional;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportOptions;
import io.rdmaflux.transport.TransportProviders;
import io.rdmaflux.pipeline.SharedKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import reactor.util.Logger;
import reactor.util.Loggers;

/** The options both channel ends share: the key, the transport, frames and liveness. */
final class ChannelSettings {

    private static final Logger log = Loggers.getLogger(ChannelSettings.class);

    static final OptionSpec<Path> KEY_FILE = optional("key-file", ValueType.path(), null,
            "Read the shared key from this file (a trailing newline is ignored); make it readable by you only.");
    static final OptionSpec<String> KEY_ENV = optional("key-env", ValueType.string(), null,
            "Read the shared key from this environment variable. With no key option at all, " + SharedKey.ENV
                    + " is used.");
    static final OptionSpec<String> KEY = optional("key", ValueType.string(), null,
            "The shared key itself; anyone who can read the pipeline file can read it: prefer key-file or key-env.")
            .secret();
    static final OptionSpec<String> TRANSPORT = optional("transport",
            ValueType.oneOf(TransportProviders.choices().toArray(String[]::new)), "auto",
            "auto uses RDMA when both hosts can, TCP otherwise; rdma fails if RDMA is unusable.");
    static final OptionSpec<Long> FRAME_SIZE = optional("frame-size", ValueType.size(TransportOptions.MIN_FRAME_SIZE, TransportOptions.MAX_FRAME_SIZE), 1L << 20,
            "The largest data frame; larger frames cost less per byte (on RDMA they are pinned memory).");
    static final OptionSpec<Integer> SLOTS = optional("slots", ValueType.integer(2, TransportOptions.MAX_SLOTS), 16,
            "Frames in flight: the receive ring and the send slots; buffer memory is about frame-size x slots.");
    static final OptionSpec<Duration> IDLE_TIMEOUT = optional("idle-timeout", ValueType.duration(),
            Duration.ofSeconds(30), "Fail the stream when nothing is heard from the peer for this long.");

    private static final Duration HEARTBEAT = Duration.ofSeconds(2);

    private ChannelSettings() {
    }

    /** The key options, then transport, frame size, slots and idle timeout. */
    static List<OptionSpec<?>> common() {
        return List.of(KEY_FILE, KEY_ENV, KEY, TRANSPORT, FRAME_SIZE, SLOTS, IDLE_TIMEOUT);
    }

    /**
     * Refuses conflicting or unusable key options, and an idle timeout too short to mean anything;
     * warns of a key file that others can read (validation runs once per file, so once).
     */
    static void validate(OptionValues v) {
        checkKey(v);
        if (v.isSet(KEY_FILE)) {
            Path file = v.get(KEY_FILE);
            SharedKey.readableByOthers(file).ifPresent(p -> log.warn("key file {} can be read by other users ({}): "
                    + "restrict it with chmod 600 {}", file, p, file));
        }
        if (v.get(IDLE_TIMEOUT).compareTo(Duration.ofSeconds(1)) < 0) {
            throw OptionValues.invalid(IDLE_TIMEOUT, "must be at least 1s");
        }
    }

    /**
     * Checks the key options as {@link #key} reads them, without reading a key file that is not
     * a regular file ({@link SharedKey#check}): {@code rdflux run --check} must not wait on a
     * FIFO, and a run must leave a FIFO's key for the one read that uses it.
     */
    static void checkKey(OptionValues v) {
        if (v.isSet(KEY_FILE) && !v.isSet(KEY_ENV) && !v.isSet(KEY)) {
            try {
                SharedKey.check(v.get(KEY_FILE));
            } catch (IllegalArgumentException e) {
                throw OptionValues.invalid(KEY_FILE, e.getMessage());
            }
            return;
        }
        key(v);
    }

    /** The key bytes, from exactly one of key-file, key-env, key, else $RDFLUX_KEY. */
    static byte[] key(OptionValues v) {
        int given = (v.isSet(KEY_FILE) ? 1 : 0) + (v.isSet(KEY_ENV) ? 1 : 0) + (v.isSet(KEY) ? 1 : 0);
        if (given > 1) {
            OptionSpec<?> second = v.isSet(KEY) ? KEY : KEY_ENV;
            throw OptionValues.invalid(second, "give only one of key-file, key-env and key");
        }
        try {
            if (v.isSet(KEY_FILE)) {
                return SharedKey.fromFile(v.get(KEY_FILE));
            }
        } catch (IllegalArgumentException e) {
            throw OptionValues.invalid(KEY_FILE, e.getMessage());
        }
        if (v.isSet(KEY)) {
            return v.get(KEY).getBytes(StandardCharsets.UTF_8);
        }
        String name = v.isSet(KEY_ENV) ? v.get(KEY_ENV) : SharedKey.ENV;
        OptionSpec<?> option = v.isSet(KEY_ENV) ? KEY_ENV : null;
        byte[] key;
        try {
            key = SharedKey.fromEnvironment(name, v.environment());
        } catch (IllegalArgumentException e) {
            throw OptionValues.invalid(option, e.getMessage());
        }
        if (key == null) {
            throw OptionValues.invalid(option, v.isSet(KEY_ENV) ? "environment variable " + name + " is not set"
                    : "no key: give key-file, key-env or key (or set " + SharedKey.ENV + ")");
        }
        return key;
    }

    /** The transport chosen; the option's values are auto and the transports found ({@link TransportProviders}). */
    static TransportKind transport(OptionValues v) {
        return TransportKind.parse(v.get(TRANSPORT));
    }

    static ChannelOptions options(OptionValues v) {
        Duration idle = v.get(IDLE_TIMEOUT);
        Duration heartbeat = idle.compareTo(HEARTBEAT.multipliedBy(2)) < 0 ? idle.dividedBy(2) : HEARTBEAT;
        int slots = v.get(SLOTS);
        return ChannelOptions.defaults()
                .withFrameSize(v.get(FRAME_SIZE).intValue())
                .withReceiveSlots(slots)
                .withSendSlots(slots)
                .withLiveness(heartbeat, idle);
    }
}
