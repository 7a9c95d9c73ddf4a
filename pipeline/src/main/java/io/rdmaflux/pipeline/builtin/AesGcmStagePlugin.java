package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.plugin.StagePlugin;
import java.util.List;

/** Stage {@code aes-256-gcm}: the built-in authenticated encryption codec. */
public final class AesGcmStagePlugin implements StagePlugin {

    @Override
    public String name() {
        return AesGcmStage.NAME;
    }

    @Override
    public String description() {
        return "Encrypts with AES-256-GCM under a key derived from the channel's shared key and the session's "
                + "nonces; needs a send sink.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public CodecSpec spec(OptionValues values) {
        return AesGcmStage.spec();
    }
}
