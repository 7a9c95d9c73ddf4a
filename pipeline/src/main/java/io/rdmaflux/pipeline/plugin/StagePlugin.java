package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.pipeline.config.OptionValues;

/**
 * The options of a codec stage. Stages are the {@link io.rdmaflux.codec.CodecStage}s the
 * process knows (its {@link io.rdmaflux.codec.CodecRegistry}, plugin jars included), each under
 * its codec name; a stage plugin only describes one's options and turns them into the
 * {@link CodecSpec} the stage reads. A codec without a stage plugin is still a stage, with no
 * options ({@code crc32c:1} from the samples, say). The built-in ones describe {@code zstd}
 * ({@code level}) and {@code aes-256-gcm}.
 *
 * <p>{@link #name()} must be the codec's name; a stage plugin for a codec nobody registered is
 * ignored with a warning.
 */
public interface StagePlugin extends Plugin {

    /** The codec spec (name, version, parameters) these options select; checked by the codec. */
    CodecSpec spec(OptionValues values);
}
