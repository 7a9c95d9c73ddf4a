package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Source {@code receive}: the channel's receiving end (as rdrecv). */
public final class ReceiveSourcePlugin implements SourcePlugin {

    static final OptionSpec<Integer> PORT = OptionSpec.required("port", ValueType.integer(0, 65535),
            "The port to listen on; 0 picks a free one, printed as 'rdflux: listening on ADDRESS:PORT'.");
    static final OptionSpec<String> BIND = OptionSpec.optional("bind", ValueType.string(), "0.0.0.0",
            "The local address to listen on.");
    static final OptionSpec<Duration> TIMEOUT = OptionSpec.optional("timeout", ValueType.duration(), Duration.ZERO,
            "Give up when no sender arrives within this time (0: wait as long as it takes).");
    static final OptionSpec<Boolean> REQUIRE_ENCRYPTION = OptionSpec.optional("require-encryption", ValueType.bool(),
            false, "Refuse a stream the sender did not encrypt (with an aes-256-gcm stage).");

    @Override
    public String name() {
        return "receive";
    }

    @Override
    public String description() {
        return "Receives one stream from a send sink (or rdsend) and decodes the stages its sender announced.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        List<OptionSpec<?>> o = new ArrayList<>(List.of(PORT, BIND));
        o.addAll(ChannelSettings.common());
        o.addAll(List.of(TIMEOUT, REQUIRE_ENCRYPTION));
        return o;
    }

    @Override
    public void validate(OptionValues values) {
        ChannelSettings.validate(values);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        return ReceiveSource.create(values.get(PORT), ChannelSettings.key(values))
                .bind(values.get(BIND))
                .transport(ChannelSettings.transport(values))
                .options(ChannelSettings.options(values))
                .timeout(values.get(TIMEOUT))
                .requireEncryption(values.get(REQUIRE_ENCRYPTION));
    }
}
